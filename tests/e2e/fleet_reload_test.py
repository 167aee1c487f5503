#!/usr/bin/env python3
"""Config reload (issue 44 item 3) with the real fabric_exporter: a fleet in a nodes file
(fleet.nodes_file), a state file of results to a peer that does not exist (nothing listens
there, and the 24 h plan round does not come during the test, so the results can only change
by a reload losing them). The state file is deleted before the first reload: whatever results
the exporter serves after it, it kept in memory over the reload.

1. A node added to the nodes file is seen by the poll (--config.reload-interval=1s): the new
   digest (docs/scale.md's recipe), the new peer, the old results, reload status 1.
2. A broken nodes file keeps the running config and says why (file, line, key); the status
   goes to 0; the poll does not retry an unchanged broken file, SIGHUP does.
3. The file fixed: reloaded, status 1, the fleet as the file says."""
import json
import os
import random
import re
import signal
import tempfile
import time
import unittest

from fabric_testlib.exporter_process import Exporter, samples
from fabric_testlib.fleet_digest import fleet_digest
from fabric_testlib.listening import free_port

TWO = [{"name": "node-a", "address": "127.0.0.1", "interface": "lo"},
       {"name": "node-b", "address": "127.0.1.2", "interface": "lo"}]
THREE = TWO + [{"name": "node-c", "address": "127.0.1.3", "interface": "lo"}]


def nodes_file(nodes):
    return "nodes:\n" + "".join(
        f"  - {{name: {n['name']}, address: {n['address']}, interface: {n['interface']}}}\n"
        for n in nodes)


def replace(path, text):
    """Writes `path` by rename, as configuration management does: the poll never reads half a
    file (it would load it, or fail on it, and then reload again once the file is whole)."""
    with open(path + ".new", "w") as f:
        f.write(text)
    os.replace(path + ".new", path)


def state_file(now):
    results = [{"probe": "tcp_multi", "target": "node-b", "direction": d, "timestamp": now - 60,
                "success": True, "failure_reason": "", "failure_detail": "", "duration": 0.2,
                "values": {"throughput_bytes_per_second": 1.0e9, "streams": 2},
                "verdicts": {}, "info": {}, "period": 0} for d in ("send", "receive")]
    return json.dumps({"version": 1, "results": results})


def throughput(body, direction):
    return samples(body).get('fabric_probe_throughput_bytes_per_second'
                             f'{{direction="{direction}",probe="tcp_multi",target="node-b"}}')


def digest_of(body):
    found = re.findall(r'^fabric_fleet_digest_info\{digest="([0-9a-f]*)"\} 1$', body, re.M)
    return found[0] if len(found) == 1 else found


def peers(body):
    return sorted(re.findall(r'^fabric_fleet_peer_info\{[^}]*peer="([^"]*)"', body, re.M))


def reload_status(body):
    s = samples(body)
    return (s.get("fabric_exporter_config_last_reload_successful"),
            s.get("fabric_exporter_config_last_reload_success_timestamp_seconds"))


def logged(exporter, msg):
    records = []
    for line in exporter.log_lines:
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if record.get("msg") == msg:
            records.append(record)
    return records


def wait_for(exporter, msg, count, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        records = logged(exporter, msg)
        if len(records) >= count:
            return records
        time.sleep(0.1)
    raise AssertionError(f"no {count}th {msg!r} log line in {timeout}s:\n" + exporter.diagnosis())


class FleetReloadTest(unittest.TestCase):
    def test_reload_adds_a_node_and_survives_a_broken_file(self):
        with tempfile.TemporaryDirectory(prefix="fleet-reload-") as d:
            with open(os.path.join(d, "probe.secret"), "w") as f:
                f.write("%064x\n" % random.getrandbits(256))
            os.chmod(os.path.join(d, "probe.secret"), 0o600)
            state = os.path.join(d, "state.yml")
            with open(state, "w") as f:
                f.write(state_file(time.time()))
            fleet = os.path.join(d, "fleet.yml")
            with open(fleet, "w") as f:
                f.write(nodes_file(TWO))
            config = os.path.join(d, "fabric_exporter.yml")
            with open(config, "w") as f:
                f.write(f"""
fleet:
  self: node-a
  nodes_file: fleet.yml
probes:
  state_file: {state}
  secret_file: {d}/probe.secret
  max_splay: 0s
  path: {{enabled: false}}
  tcp: {{round: 24h, duration: 200ms, warmup: 0s, streams: 2, single_stream: false,
         port: {free_port()}, calibration: {{enabled: false}}}}
""")
            with Exporter("--config.file=" + config, "--config.reload-interval=1s") as e:
                body = e.metrics()
                self.assertEqual(digest_of(body), fleet_digest(TWO))
                self.assertEqual(peers(body), ["node-b"])
                self.assertEqual(throughput(body, "send"), 1.0e9)
                ok, started = reload_status(body)
                self.assertEqual(ok, 1)
                self.assertGreater(started, time.time() - 60)

                # 1. A node added; the poll sees it. The results now live only in the process.
                os.unlink(state)
                replace(fleet, nodes_file(THREE))
                reloaded = wait_for(e, "config reloaded", 1)
                self.assertEqual(reloaded[0]["trigger"], "file changed")
                self.assertEqual(reloaded[0]["fleet_digest"], fleet_digest(THREE))
                body = e.metrics()
                self.assertEqual(digest_of(body), fleet_digest(THREE))
                self.assertNotEqual(fleet_digest(THREE), fleet_digest(TWO))
                self.assertEqual(peers(body), ["node-b", "node-c"])
                self.assertEqual(throughput(body, "send"), 1.0e9, "results lost over the reload")
                self.assertEqual(throughput(body, "receive"), 1.0e9)
                ok, after_add = reload_status(body)
                self.assertEqual(ok, 1)
                self.assertGreater(after_add, started)

                # 2. Broken: node-c listed with node-b's address, on line 4.
                replace(fleet, nodes_file(TWO) +
                        "  - {name: node-c, address: 127.0.1.2, interface: lo}\n")
                failed = wait_for(e, "config reload failed", 1)
                self.assertEqual(failed[0]["trigger"], "file changed")
                self.assertIn(f"{fleet}:4:29: key nodes[2].address: address 127.0.1.2 is listed twice",
                              failed[0]["err"])
                body = e.metrics()
                self.assertEqual(reload_status(body), (0, after_add))
                self.assertEqual(digest_of(body), fleet_digest(THREE), "the running config changed")
                self.assertEqual(peers(body), ["node-b", "node-c"])
                self.assertEqual(throughput(body, "send"), 1.0e9)
                time.sleep(3)  # Three polls of the unchanged broken file: no new attempt.
                self.assertEqual(len(logged(e, "config reload failed")), 1)
                e.proc.send_signal(signal.SIGHUP)
                failed = wait_for(e, "config reload failed", 2)
                self.assertEqual(failed[1]["trigger"], "SIGHUP")

                # 3. Fixed: back to two nodes.
                replace(fleet, nodes_file(TWO))
                wait_for(e, "config reloaded", 2)
                body = e.metrics()
                self.assertEqual(digest_of(body), fleet_digest(TWO))
                self.assertEqual(peers(body), ["node-b"])
                self.assertEqual(reload_status(body)[0], 1)
                self.assertEqual(throughput(body, "send"), 1.0e9)
                self.assertEqual(e.stop(), 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
