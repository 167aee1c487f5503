#!/usr/bin/env python3
"""Path checks for real (issue: scheduled probes): fabric_exporter in one
network namespace with a two-node fleet config probes the route and the jumbo
path to its peer. Moving the route onto a second interface sets the mismatch
metric; an MTU of 1500 on the peer fails the jumbo check; a restart keeps the
last results."""
import os
import tempfile
import time
import unittest

from fabric_testlib.exporter_process import Exporter, samples
from fabric_testlib.netns import Namespaces, ip, require_root

A, B = "fl8a", "fl8b"
FLEET = """
fleet:
  self: node-a
  nodes:
    - {{name: node-a, address: 198.18.8.1, interface: fl8a0, mtu: 9000}}
    - {{name: node-b, address: 198.18.8.2, interface: fl8b0, mtu: 9000}}
probes:
  state_file: {state}
  max_splay: 0s
  path: {{interval: 1s, echo_timeout: 500ms}}
collectors:
  flows: {{enabled: false}}
"""


def value(body, name):
    return samples(body).get(f'fabric_probe_{name}{{direction="",probe="path",target="node-b"}}')


class PathProbeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_root()
        cls.ns = Namespaces(A, B).__enter__()
        cls.ns.veth(A, "fl8a0", "198.18.8.1/24", B, "fl8b0", "198.18.8.2/24", mtu=9000)
        cls.ns.veth(A, "fl8a1", "198.18.8.5/30", B, "fl8b1", "198.18.8.6/30", mtu=9000)
        cls.tmp = tempfile.TemporaryDirectory()
        cls.config = os.path.join(cls.tmp.name, "fabric_exporter.yml")
        cls.state = os.path.join(cls.tmp.name, "state.yml")
        with open(cls.config, "w") as f:
            f.write(FLEET.format(state=cls.state))

    @classmethod
    def tearDownClass(cls):
        cls.ns.__exit__(None, None, None)
        cls.tmp.cleanup()

    def exporter(self):
        return Exporter("--config.file=" + self.config, netns=A)

    def wait_for(self, exporter, predicate, timeout=15):
        deadline = time.monotonic() + timeout
        body = ""
        while time.monotonic() < deadline:
            body = exporter.metrics()
            if predicate(body):
                return body
            time.sleep(0.3)
        self.fail("condition not met; last scrape:\n" +
                  "\n".join(l for l in body.splitlines() if "fabric_probe" in l))

    def test_route_mtu_and_restart(self):
        with self.exporter() as e:
            body = self.wait_for(e, lambda b: value(b, "jumbo_frames_pass") is not None)
            self.assertEqual(value(body, "egress_matches_expected"), 1.0)
            self.assertEqual(value(body, "route_mtu_bytes"), 9000.0)
            self.assertEqual(value(body, "jumbo_frames_pass"), 1.0)
            self.assertEqual(value(body, "success"), 1.0)
            self.assertIn('egress_interface="fl8a0"', body)
            self.assertIn('fabric_fleet_peer_info{address="198.18.8.2"', body)

            # Shape 13: the route to the peer now leaves through the wrong NIC.
            ip("-n", A, "route", "add", "198.18.8.2/32", "dev", "fl8a1")
            body = self.wait_for(e, lambda b: value(b, "egress_matches_expected") == 0.0)
            self.assertIn('egress_interface="fl8a1"', body)
            ip("-n", A, "route", "del", "198.18.8.2/32", "dev", "fl8a1")
            self.wait_for(e, lambda b: value(b, "egress_matches_expected") == 1.0)

            # The peer runs MTU 1500: a 9000-byte frame with DF set no longer arrives.
            ip("-n", B, "link", "set", "fl8b0", "mtu", "1500")
            self.wait_for(e, lambda b: value(b, "jumbo_frames_pass") == 0.0)
            ip("-n", B, "link", "set", "fl8b0", "mtu", "9000")
            before = self.wait_for(e, lambda b: value(b, "jumbo_frames_pass") == 1.0)
            last_run = value(before, "last_run_timestamp_seconds")
            self.assertGreater(last_run, 0)
            # A scrape can show a result before the state file has it (the
            # scheduler records, then writes and fsyncs): stopping the
            # exporter lets that write finish, where SIGKILL could leave the
            # file one run behind, at the MTU-1500 result.
            self.assertEqual(e.stop(), 0)

        # Restart: the last result is served from the state file before (or
        # unless) a new run replaces it.
        self.assertTrue(os.path.exists(self.state))
        with self.exporter() as e:
            body = e.metrics()
            restored = value(body, "last_run_timestamp_seconds")
            runs = samples(body).get(
                'fabric_probe_runs_total{outcome="success",probe="path",target="node-b"}', 0)
            self.assertGreater(restored, 0)
            self.assertTrue(restored >= last_run or runs >= 1)
            self.assertEqual(value(body, "jumbo_frames_pass"), 1.0)

    def test_corrupt_state_file_is_reported_not_fatal(self):
        with open(self.state, "w") as f:
            f.write("version: 1\nresults: [ {probe: path\n")
        with self.exporter() as e:
            log = e.wait_for_log("ignoring the probe state file")
            self.assertIn("corrupt state file", log)
            self.wait_for(e, lambda b: value(b, "success") == 1.0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
