#!/usr/bin/env python3
"""A three-node fabric in network namespaces joined by a bridge, each node
running fabric_exporter with the same fleet config: the embedded responders
and the coordinator-free probe plan give every node TCP results (both
directions) for both of its peers, the RDMA rung reports why it has no number
on a host without RDMA devices, and a restarted exporter keeps its results."""
import os
import tempfile
import time
import unittest

from fabric_testlib.exporter_process import Exporter, samples
from fabric_testlib.netns import Namespaces, ip, require_root

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


if __name__ == "__main__":
    unittest.main(verbosity=2)
