#!/usr/bin/env python3
"""Three nodes in network namespaces on a bridge (as tests/netns/fleet_netns_test.py),
each fabric_exporter on an emulated RDMA device bound to its veth: the
scheduled RDMA rung measures every peer with counters_consistent, and nothing
stays registered when the exporters stop. Then a QP connect from another
address than the authenticated requester's is refused by fabric_probe serve.
Needs root (skips with 77); run it alone, not beside the other root tests."""
import os
import signal
import subprocess
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
from fabric_testlib import rdma_emulation as emulated
from fabric_testlib.rdma_emulation import Device, Proc
from fabric_testlib.exporter_process import Exporter, samples
from fabric_testlib.netns import Namespaces, ip, require_root

HUB = "fl25hub"
NODES = {"node-1": ("fl25n1", "198.18.25.65"), "node-2": ("fl25n2", "198.18.25.66"),
         "node-3": ("fl25n3", "198.18.25.67")}
SECOND_ADDRESS = "198.18.25.75"  # node-1's other address
CONFIG = """
fleet:
  self: {self}
  nodes:
{nodes}
probes:
  secret_file: {secret}
  max_splay: 0s
  path: {{enabled: false}}
  tcp: {{round: 3s, duration: 300ms, warmup: 100ms, streams: 1, single_stream: false,
         calibration: {{enabled: false}}}}
  rdma: {{duration: 300ms, warmup: 0s, qps: 2, size: 65536, tx_depth: 16}}
collectors:
  flows: {{enabled: false}}
"""


class EmulatedFleetTest(unittest.TestCase):
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
        ip("-n", NODES["node-1"][0], "addr", "add", SECOND_ADDRESS + "/26", "dev", "fab0")
        cls.dir = emulated.scratch_dir()
        cls.secret = os.path.join(cls.dir, "secret")
        with open(cls.secret, "w") as f:
            f.write("0123456789abcdef0123456789abcdef\n")
        os.chmod(cls.secret, 0o600)

    @classmethod
    def tearDownClass(cls):
        cls.ns.__exit__(None, None, None)
        emulated.cleanup(cls.dir)

    def device(self, name):
        return Device(os.path.join(self.dir, name), name="rxe_" + name.replace("-", ""),
                      netdev="fab0")

    def test_scheduled_rdma_rung_measures_every_peer(self):
        nodes = "\n".join(f"    - {{name: {name}, address: {address}, interface: fab0}}"
                          for name, (_, address) in NODES.items())
        exporters, stats = {}, {}
        try:
            for name, (ns, _) in NODES.items():
                dev = self.device(name)
                config = os.path.join(self.dir, name + ".yml")
                with open(config, "w") as f:
                    f.write(CONFIG.format(self=name, nodes=nodes, secret=self.secret))
                stats[name] = os.path.join(self.dir, name + "-emu.json")
                e = Exporter("--config.file=" + config, "--path.sysfs=" + dev.sys, netns=ns)
                envs = [f"{k}={v}" for k, v in dev.env(stats[name]).items()]
                # ip netns exec NS env ... fabric_exporter ...: the preload
                # reaches the exporter only, inside its namespace.
                e.args = [*e.args[:4], "env", *envs, *e.args[4:]]
                exporters[name] = e.__enter__()
            deadline = time.monotonic() + 120
            missing = None
            while time.monotonic() < deadline:
                missing = []
                for name, e in exporters.items():
                    body = e.metrics()
                    for peer in NODES:
                        if peer == name:
                            continue
                        key = f'{{direction="send",probe="rdma",target="{peer}"}}'
                        if samples(body).get("fabric_probe_success" + key) != 1:
                            missing.append((name, peer))
                if not missing:
                    break
                time.sleep(1)
            self.assertEqual(missing, [], "RDMA results still missing after 120 s")
            for name, e in exporters.items():
                body = e.metrics()
                for peer in NODES:
                    if peer == name:
                        continue
                    key = f'direction="send",probe="rdma",target="{peer}"'
                    self.assertGreater(samples(body).get(
                        f"fabric_probe_throughput_bytes_per_second{{{key}}}", 0), 0)
                    self.assertRegex(body, r'fabric_probe_info\{counters_consistent="true",'
                                           r'device="rxe_node\d",direction="send",'
                                           r'link_layer="Ethernet",probe="rdma",'
                                           f'target="{peer}"' + r'\} 1')
                    self.assertIn(f'fabric_probe_verdict{{{key},verdict="congested"}} 0', body)
        finally:
            # SIGTERM: a clean stop, so the emulation's exit report is written.
            codes = {name: e.stop() for name, e in exporters.items()}
            for e in exporters.values():
                e.__exit__(None, None, None)
        self.assertEqual(codes, {name: 0 for name in NODES})
        for name, path in stats.items():
            report = Proc.__new__(Proc)
            report.stats = path
            r = report.report()
            self.assertEqual(r["live"], {"pd": 0, "mr": 0, "cq": 0, "qp": 0, "cm_id": 0,
                                         "channel": 0}, f"{name} left objects registered")
            self.assertEqual(r["notes"], [], name)
            self.assertGreater(r["writes_completed"], 0, name)
            self.assertGreater(r["writes_received"], 0, name)

    def test_qp_connect_from_another_address_is_refused(self):
        ns1, addr1 = NODES["node-1"]
        ns2, addr2 = NODES["node-2"]
        port = 19925
        serve_dev, client_dev = self.device("serve2"), self.device("client1")
        serve = Proc([emulated.PROBE, "serve", "--listen", f"{addr2}:{port}", "--allow",
                      "198.18.25.64/26", "--secret-file", self.secret, "--path.sysfs",
                      serve_dev.sys], serve_dev, os.path.join(self.dir, "serve2.json"),
                     prefix=("ip", "netns", "exec", ns2))
        try:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                listening = subprocess.run(["ip", "netns", "exec", ns2, "ss", "-ltnH"],
                                           capture_output=True, text=True).stdout
                if f"{addr2}:{port}" in listening:
                    break
                time.sleep(0.1)
            args = [emulated.CLIENT, "--peer", f"{addr2}:{port}", "--secret-file", self.secret,
                    "--bind", addr1]
            prefix = ("ip", "netns", "exec", ns1)
            same = Proc(args, client_dev, os.path.join(self.dir, "c-same.json"), prefix=prefix)
            self.assertEqual(same.wait(30), 0, same.out + same.err)  # the control case
            other = Proc(args + ["--qp-source", SECOND_ADDRESS], client_dev,
                         os.path.join(self.dir, "c-other.json"), prefix=prefix)
            self.assertEqual(other.wait(30), 5, other.out + other.err)
            self.assertIn("refused:", other.out)
            self.assertEqual(other.report()["live"]["qp"], 0)
        finally:
            serve.signal(signal.SIGTERM)
            serve.wait(20)
        r = serve.report()
        self.assertEqual(r["live"]["qp"], 0)
        self.assertEqual(r["notes"], [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
