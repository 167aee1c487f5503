#!/usr/bin/env python3
"""The latency and loss mesh between two real exporters in namespaces joined
by a veth pair: each node's mesh times TCP connects to the other's embedded
responder and counts them; a tc qdisc that drops every frame (a token bucket
with a 10-byte burst: no frame fits) on node-2's side makes both nodes'
fabric_path_lost_total rise while no probe is answered, and removing it
brings the answers back. Every wait is for a counter to reach a state, with a
deadline; nothing asserts on elapsed time."""
import os
import re
import subprocess
import tempfile
import time
import unittest

from fabric_testlib.exporter_process import Exporter, samples
from fabric_testlib.netns import Namespaces, ip, require_root

NODES = {"node-1": ("flm1", "fab1", "198.18.12.1"), "node-2": ("flm2", "fab2", "198.18.12.2")}
CONFIG = """
fleet:
  self: {self}
  nodes:
{nodes}
probes:
  secret_file: {secret}
  max_splay: 0s
  path: {{enabled: false}}
  tcp: {{round: 1h, duration: 1s, warmup: 0s, streams: 1, single_stream: false}}
  mesh: {{interval: 1s, timeout: 500ms}}
collectors:
  flows: {{enabled: false}}
"""
WAIT_SECONDS = 60


def counts(body, peer):
    s = samples(body)
    probes = s.get(f'fabric_path_probes_total{{target="{peer}"}}')
    lost = s.get(f'fabric_path_lost_total{{target="{peer}"}}')
    answered = s.get(f'fabric_path_rtt_seconds_count{{target="{peer}"}}')
    return probes, lost, answered


def wait_for(what, predicate):
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"{what}: not reached within {WAIT_SECONDS} s")


class PathMeshTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_root()
        if subprocess.run(["which", "tc"], capture_output=True).returncode != 0:
            print("SKIP: tc not installed")
            raise SystemExit(77)
        (ns1, if1, a1), (ns2, if2, a2) = NODES.values()
        cls.ns = Namespaces(ns1, ns2).__enter__()
        try:
            cls.ns.veth(ns1, if1, a1 + "/24", ns2, if2, a2 + "/24")
        except BaseException:
            cls.ns.__exit__(None, None, None)
            raise
        cls.tmp = tempfile.TemporaryDirectory()
        secret = os.path.join(cls.tmp.name, "secret")
        with open(secret, "w") as f:
            f.write("0123456789abcdef0123456789abcdef\n")
        os.chmod(secret, 0o600)
        nodes = "\n".join(f"    - {{name: {name}, address: {address}, interface: {dev}}}"
                          for name, (_, dev, address) in NODES.items())
        cls.configs = {}
        for name in NODES:
            path = os.path.join(cls.tmp.name, name + ".yml")
            with open(path, "w") as f:
                f.write(CONFIG.format(self=name, nodes=nodes, secret=secret))
            cls.configs[name] = path

    @classmethod
    def tearDownClass(cls):
        cls.ns.__exit__(None, None, None)
        cls.tmp.cleanup()

    def test_mesh_counts_probes_and_losses(self):
        e1 = Exporter("--config.file=" + self.configs["node-1"], netns=NODES["node-1"][0])
        e2 = Exporter("--config.file=" + self.configs["node-2"], netns=NODES["node-2"][0])
        with e1, e2:
            peer_of = {e1: "node-2", e2: "node-1"}
            # A clean veth: probes answered, none lost.
            for e, peer in peer_of.items():
                wait_for(f"{peer} answered 3 probes",
                         lambda e=e, peer=peer: (counts(e.metrics(), peer)[2] or 0) >= 3)
            body = e1.metrics()
            probes, lost, answered = counts(body, "node-2")
            self.assertEqual(lost, 0, body)
            self.assertEqual(probes, answered)
            # Only fleet members are targets, never this node itself.
            targets = set(re.findall(r'^fabric_path_probes_total\{target="([^"]*)"\}', body, re.M))
            self.assertEqual(targets, {"node-2"})
            # A veth round trip falls inside the buckets (<= 100 ms).
            inside = samples(body)['fabric_path_rtt_seconds_bucket{target="node-2",le="0.1"}']
            self.assertGreater(inside, 0)

            # Every frame node-2 sends is dropped: node-1's SYNs reach node-2
            # but no SYN-ACK comes back, node-2's own SYNs never leave.
            ns2, if2, _ = NODES["node-2"]
            subprocess.run(["ip", "netns", "exec", ns2, "tc", "qdisc", "add", "dev", if2, "root",
                            "tbf", "rate", "8bit", "burst", "10", "limit", "10"], check=True)
            before = {e: counts(e.metrics(), peer) for e, peer in peer_of.items()}
            for e, peer in peer_of.items():
                wait_for(f"3 more lost probes to {peer}",
                         lambda e=e, peer=peer: counts(e.metrics(), peer)[1] >= before[e][1] + 3)
            for e, peer in peer_of.items():
                _, lost, answered = counts(e.metrics(), peer)
                # At most the one probe in flight when the qdisc went on was answered.
                self.assertLessEqual(answered, before[e][2] + 1, peer)
                self.assertGreaterEqual(lost, before[e][1] + 3)

            # The link heals: answers again, the loss counter stops.
            subprocess.run(["ip", "netns", "exec", ns2, "tc", "qdisc", "del", "dev", if2, "root"],
                           check=True)
            during = {e: counts(e.metrics(), peer) for e, peer in peer_of.items()}
            for e, peer in peer_of.items():
                wait_for(f"{peer} answers again",
                         lambda e=e, peer=peer: counts(e.metrics(), peer)[2] >= during[e][2] + 3)
            # The counters are still the per-target ones the rules read.
            self.assertIn('# TYPE fabric_path_rtt_seconds histogram', e1.metrics())


if __name__ == "__main__":
    unittest.main(verbosity=2)
