#!/usr/bin/env python3
"""A three-node fabric in network namespaces joined by a bridge, each node
running fabric_exporter with the same fleet config: the embedded responders
and the coordinator-free probe plan give every node TCP results (both
directions) for both of its peers, the RDMA rung reports why it has no number
on a host without RDMA devices, and a restarted exporter keeps its results.

Then the same nodes read their fleet from a nodes file (fleet.nodes_file), and node-3's file
lists a fourth node the others' does not (issue 44 item 2): node-3 plans with another list, so
it and its peers refuse to probe each other on the HELLO, each side names the other's digest,
FabricFleetListsDiffer fires over the scraped series, and node-1 and node-2, on one list,
still measure each other."""
import os
import re
import tempfile
import time
import unittest

from fabric_testlib.exporter_process import Exporter, samples
from fabric_testlib.fleet_digest import fleet_digest
from fabric_testlib.netns import Namespaces, ip, require_root
from fabric_testlib.rule_eval import firing_alerts, scrape_series

HUB = "fl8hub"
NODES = {"node-1": ("fl8n1", "198.18.8.65"), "node-2": ("fl8n2", "198.18.8.66"),
         "node-3": ("fl8n3", "198.18.8.67")}
CONFIG = """
fleet:
  self: {self}
  nodes:
{nodes}
probes:
  secret_file: {secret}
  state_file: {state}
  max_splay: 0s
  path: {{interval: 2s}}
  tcp: {{round: 4s, duration: 1s, warmup: 300ms, streams: 2, single_stream: false,
         calibration: {{enabled: false}}}}
  rdma: {{duration: 300ms, warmup: 0s, qps: 2}}
collectors:
  flows: {{enabled: false}}
"""


# The fleet in a nodes file; {nodes_file} relative to the config's directory.
SPLIT_CONFIG = CONFIG.replace("  nodes:\n{nodes}\n", "  nodes_file: {nodes_file}\n")


def throughput(body, peer, direction):
    return samples(body).get('fabric_probe_throughput_bytes_per_second'
                             f'{{direction="{direction}",probe="tcp_multi",target="{peer}"}}')


class FleetTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_root()
        cls.ns = Namespaces(HUB, *(ns for ns, _ in NODES.values())).__enter__()
        ip("-n", HUB, "link", "add", "br0", "type", "bridge")
        ip("-n", HUB, "link", "set", "br0", "up")
        for i, (ns, address) in enumerate(NODES.values()):
            ip("link", "add", "fab0", "netns", ns, "type", "veth", "peer", "name", f"port{i}",
               "netns", HUB)
            ip("-n", ns, "addr", "add", address + "/26", "dev", "fab0")
            ip("-n", ns, "link", "set", "fab0", "up")
            ip("-n", HUB, "link", "set", f"port{i}", "master", "br0", "up")
        cls.tmp = tempfile.TemporaryDirectory()
        secret = os.path.join(cls.tmp.name, "secret")
        with open(secret, "w") as f:
            f.write("0123456789abcdef0123456789abcdef\n")
        os.chmod(secret, 0o600)
        nodes = "\n".join(f"    - {{name: {name}, address: {address}, interface: fab0}}"
                          for name, (_, address) in NODES.items())
        cls.configs = {}
        for name in NODES:
            path = os.path.join(cls.tmp.name, name + ".yml")
            with open(path, "w") as f:
                f.write(CONFIG.format(self=name, nodes=nodes, secret=secret,
                                      state=os.path.join(cls.tmp.name, name + ".state")))
            cls.configs[name] = path

    @classmethod
    def tearDownClass(cls):
        cls.ns.__exit__(None, None, None)
        cls.tmp.cleanup()

    def exporter(self, name):
        return Exporter("--config.file=" + self.configs[name], netns=NODES[name][0])

    def test_every_node_measures_both_peers_and_keeps_results(self):
        exporters = {name: self.exporter(name).__enter__() for name in NODES}
        try:
            deadline = time.monotonic() + 60
            missing = None
            while time.monotonic() < deadline:
                missing = [(name, peer, d) for name, e in exporters.items()
                           for peer in NODES if peer != name for d in ("send", "receive")
                           if not (throughput(e.metrics(), peer, d) or 0) > 0]
                if not missing:
                    break
                time.sleep(1)
            self.assertEqual(missing, [], "results still missing after 60 s")
            body = exporters["node-1"].metrics()
            # The plan keeps each node to one probe at a time: no BUSY retries
            # were needed, and idle rounds are counted as such.
            runs = samples(body)
            self.assertEqual(runs.get('fabric_probe_runs_total{outcome="busy",probe="tcp_multi",'
                                      'target="plan"}', 0), 0)
            self.assertGreater(runs.get('fabric_probe_runs_total{outcome="idle",probe="tcp_multi",'
                                        'target="plan"}', 0), 0)
            self.assertIn('fabric_probe_verdict{direction="send",probe="tcp_multi",'
                          'target="node-2",verdict="cpu_bound"}', body)
            # The RDMA rung runs in the same rounds; without an RDMA device it
            # says so instead of reporting a number.
            ib = "/sys/class/infiniband"
            if not (os.path.isdir(ib) and os.listdir(ib)):
                self.assertRegex(body, r'fabric_probe_failure_info\{direction="send",probe="rdma",'
                                       r'reason="no_device",target="node-[23]"\} 1')
                self.assertNotIn('fabric_probe_throughput_bytes_per_second{direction="send",'
                                 'probe="rdma"', body)
            before = throughput(body, "node-2", "send")
        finally:
            for e in exporters.values():
                e.__exit__(None, None, None)
        # A restarted exporter serves its last results before its next round.
        with self.exporter("node-1") as e:
            body = e.metrics()
            self.assertGreater(throughput(body, "node-2", "send") or 0, 0)
            self.assertGreater(throughput(body, "node-3", "receive") or 0, 0)
            if throughput(body, "node-2", "send") != before:
                # Only a new run in the meantime may change it.
                self.assertGreater(samples(body).get(
                    'fabric_probe_runs_total{outcome="success",probe="tcp_multi",target="plan"}',
                    0), 0)


    def test_a_node_on_another_fleet_list_is_reported_not_probed(self):
        listed = [{"name": n, "address": a, "interface": "fab0"} for n, (_, a) in NODES.items()]
        stale = listed + [{"name": "node-4", "address": "198.18.8.68", "interface": "fab0"}]
        for name, nodes in (("fleet.yml", listed), ("fleet-4.yml", stale)):
            with open(os.path.join(self.tmp.name, name), "w") as f:
                f.write("nodes:\n" + "".join(
                    f"  - {{name: {n['name']}, address: {n['address']}, interface: fab0}}\n"
                    for n in nodes))
        shared, other = fleet_digest(listed), fleet_digest(stale)
        secret = os.path.join(self.tmp.name, "secret")
        configs = {}
        for name in NODES:
            configs[name] = os.path.join(self.tmp.name, name + "-split.yml")
            with open(configs[name], "w") as f:
                f.write(SPLIT_CONFIG.format(
                    self=name, secret=secret, nodes_file="fleet-4.yml" if name == "node-3" else
                    "fleet.yml", state=os.path.join(self.tmp.name, name + "-split.state")))
        exporters = {name: Exporter("--config.file=" + configs[name],
                                    netns=NODES[name][0]).__enter__() for name in NODES}

        def disagreeing(body):
            return set(re.findall(r'^fabric_fleet_peer_digest_info\{agreement="differs",'
                                  r'[^}]*peer="([^"]*)",peer_digest="([0-9a-f]*)"\} 1$', body, re.M))
        try:
            deadline = time.monotonic() + 60
            while True:
                bodies = {name: e.metrics() for name, e in exporters.items()}
                seen = {name: disagreeing(body) for name, body in bodies.items()}
                both_sides = (seen["node-3"] and (seen["node-1"] or seen["node-2"]))
                measured = all((throughput(bodies[a], b, d) or 0) > 0 for a, b in
                               (("node-1", "node-2"), ("node-2", "node-1"))
                               for d in ("send", "receive"))
                if (both_sides and measured) or time.monotonic() > deadline:
                    break
                time.sleep(1)
            self.assertTrue(both_sides, f"no mismatch reported on both sides in 60 s: {seen}")
            self.assertTrue(measured, "node-1 and node-2, on one list, did not measure each other")
            for name, body in bodies.items():
                self.assertIn(f'fabric_fleet_digest_info{{digest="{other if name == "node-3" else shared}"}} 1',
                              body)
            # Each side names the other's digest.
            self.assertLessEqual(seen["node-3"], {("node-1", shared), ("node-2", shared)})
            for name in ("node-1", "node-2"):
                self.assertLessEqual(seen[name], {("node-3", other)})
            # The refused runs say why.
            self.assertTrue(any('reason="fleet_mismatch"' in body for body in bodies.values()),
                            "no fabric_probe_failure_info{reason=\"fleet_mismatch\"}")
            # No probe ran on the split plan: no result between node-3 and the others, either
            # way, on either side.
            for name, body in bodies.items():
                for peer in NODES:
                    if peer == name or "node-3" not in (name, peer):
                        continue
                    for d in ("send", "receive"):
                        self.assertIsNone(throughput(body, peer, d), (name, peer, d))
            # The alert, over what the three exporters served (as Prometheus would store it).
            series = [s for name, body in bodies.items() for s in scrape_series(body, name, 25)]
            fired = firing_alerts(os.path.join(self.tmp.name, "split.test.yml"), series, 20,
                                  {"FabricFleetListsDiffer"},
                                  ("instance", "digest", "peer", "peer_digest"))
            expected = {("FabricFleetListsDiffer", "node-3", other, peer, shared)
                        for peer, _ in seen["node-3"]}
            expected |= {("FabricFleetListsDiffer", name, shared, "node-3", other)
                         for name in ("node-1", "node-2") if seen[name]}
            self.assertEqual(fired, expected)
        finally:
            for e in exporters.values():
                e.__exit__(None, None, None)


if __name__ == "__main__":
    unittest.main(verbosity=2)
