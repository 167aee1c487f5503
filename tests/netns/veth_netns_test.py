#!/usr/bin/env python3
"""The netdev collector's real kernel path (sysfs, SIOCETHTOOL ioctls, ethtool
netlink) on a veth pair between two network namespaces this test creates:
real TCP traffic from one end must show up in the byte and packet counters of
the real exporter scraped inside that namespace; a real carrier flap (the peer
end set down and up) must be counted and judged by FabricLinkFlapping (the
rule bundle evaluated by promtool over the scraped values), and an offload
change (GRO) must show in the next scrape. Needs root; exits 77 (skip)
otherwise. Namespaces and veths use the prefix fl4 and 198.18.4.0/24."""
import os
import re
import tempfile
import subprocess
import sys
import time
import unittest

from fabric_testlib.exporter_process import EXPORTER, Exporter, promtool_check_metrics, samples

SKIP = 77
TAG = str(os.getpid() % 100000)
NS_A, NS_B = "fl4a" + TAG, "fl4b" + TAG
VETH_A, VETH_B = "fl4va" + TAG, "fl4vb" + TAG
ADDR_A, ADDR_B = "198.18.4.1", "198.18.4.2"
PAYLOAD = 8 * 1024 * 1024


def sh(*args, ns=None, check=True):
    cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
    return subprocess.run(cmd, check=check, capture_output=True, text=True, timeout=30)


class NetnsExporter(Exporter):
    """The exporter started and scraped inside a namespace (its loopback is
    not reachable from outside)."""

    def __init__(self, ns, *args):
        super().__init__(*args)
        self.ns = ns
        self.args = ["ip", "netns", "exec", ns] + self.args

    def metrics(self):
        fetch = ("import sys, urllib.request; "
                 "sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())")
        out = sh(sys.executable, "-c", fetch, self.base_url + "/metrics", ns=self.ns)
        return out.stdout


class VethNetnsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.created = []
        try:
            for ns in (NS_A, NS_B):
                sh("ip", "netns", "add", ns)
                cls.created.append(ns)
            sh("ip", "link", "add", VETH_A, "netns", NS_A, "type", "veth", "peer", "name", VETH_B,
               "netns", NS_B)
            for ns, dev, addr in ((NS_A, VETH_A, ADDR_A), (NS_B, VETH_B, ADDR_B)):
                sh("ip", "-n", ns, "addr", "add", addr + "/24", "dev", dev)
                sh("ip", "-n", ns, "link", "set", dev, "up")
                sh("ip", "-n", ns, "link", "set", "lo", "up")
        except Exception:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        for ns in cls.created:
            sh("ip", "netns", "del", ns, check=False)

    def send_tcp(self, nbytes):
        """Sends nbytes over TCP from NS_A to a sink in NS_B; returns bytes the sink read."""
        sink = subprocess.Popen(
            ["ip", "netns", "exec", NS_B, sys.executable, "-c",
             "import socket, sys\n"
             "s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
             f"s.bind(('{ADDR_B}', 5201)); s.listen(1); print('ready', flush=True)\n"
             "c, _ = s.accept(); n = 0\n"
             "while True:\n"
             "    b = c.recv(1 << 16)\n"
             "    if not b: break\n"
             "    n += len(b)\n"
             "print(n, flush=True)\n"],
            stdout=subprocess.PIPE, text=True)
        try:
            self.assertEqual(sink.stdout.readline().strip(), "ready")
            sh(sys.executable, "-c",
               "import socket\n"
               f"s = socket.create_connection(('{ADDR_B}', 5201), timeout=10)\n"
               f"s.sendall(b'x' * {nbytes}); s.close()\n", ns=NS_A)
            out, _ = sink.communicate(timeout=30)
            return int(out.strip())
        finally:
            if sink.poll() is None:
                sink.kill()
                sink.wait()

    def test_counters_move_with_real_traffic(self):
        config = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"fl4-netdev-{TAG}.yml")
        with open(config, "w") as f:
            f.write("collectors:\n  netdev:\n    device_include: '^fl4'\n    queue_stats: true\n")
        try:
            with NetnsExporter(NS_A, "--config.file=" + config, "--collector.disable-defaults",
                               "--collector.netdev", "--collector.rdma") as exporter:
                before_text = exporter.metrics()
                received = self.send_tcp(PAYLOAD)
                time.sleep(0.2)
                after_text = exporter.metrics()
        finally:
            os.unlink(config)
        self.assertEqual(received, PAYLOAD)
        self.assertEqual(promtool_check_metrics(after_text), "")
        before, after = samples(before_text), samples(after_text)
        dev = f'device="{VETH_A}"'
        self.assertEqual(after['fabric_scrape_collector_success{collector="netdev"}'], 1,
                         "\n".join(exporter.log_lines))
        tx = f'fabric_netdev_bytes_total{{{dev},direction="tx"}}'
        rx = f'fabric_netdev_bytes_total{{{dev},direction="rx"}}'
        txp = f'fabric_netdev_packets_total{{{dev},direction="tx"}}'
        # The payload left through the veth (plus headers); the ACKs came back.
        self.assertGreaterEqual(after[tx] - before[tx], PAYLOAD)
        self.assertLess(after[tx] - before[tx], PAYLOAD * 1.2)
        self.assertGreater(after[rx] - before[rx], 0)
        self.assertGreater(after[txp] - before[txp], 0)
        # ETHTOOL_GDRVINFO through the ioctl; veth has no PCI address.
        info = [k for k in after if k.startswith("fabric_netdev_info{") and dev in k]
        self.assertEqual(len(info), 1, after_text)
        self.assertIn('driver="veth"', info[0])
        self.assertIn('pci_address=""', info[0])
        # veth has no pause support: absent, not an error and not zero.
        self.assertFalse([k for k in after if k.startswith("fabric_netdev_pause") and dev in k])
        # Channels from ETHTOOL_GCHANNELS; the per-queue drop counter (opt-in).
        self.assertIn(f'fabric_netdev_channels{{bound="current",{dev},kind="rx",role="other"}}', after)
        self.assertIn(f'fabric_netdev_queue_drops_total{{{dev},direction="rx",queue="0"}}', after)
        self.assertEqual(after[f"fabric_netdev_up{{{dev}}}"], 1)
        self.assertEqual(after[f"fabric_netdev_mtu_bytes{{{dev}}}"], 1500)
        # Loopback is not physical and not included.
        self.assertFalse([k for k in after if 'device="lo"' in k])


    def test_carrier_flap_counted_and_judged(self):
        dev = f'device="{VETH_A}"'
        down = f'fabric_netdev_carrier_transitions_total{{{dev},role="other",transition="down"}}'
        up = f'fabric_netdev_carrier_transitions_total{{{dev},role="other",transition="up"}}'
        gro = f'fabric_netdev_offload_enabled{{{dev},offload="gro",role="other"}}'
        config = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"fl4-flap-{TAG}.yml")
        with open(config, "w") as f:
            f.write("collectors:\n  netdev:\n    device_include: '^fl4'\n")
        try:
            with NetnsExporter(NS_A, "--config.file=" + config, "--collector.disable-defaults",
                               "--collector.netdev") as exporter:
                before = samples(exporter.metrics())
                sh("ethtool", "-K", VETH_A, "gro", "off", ns=NS_A)
                # veth's carrier follows its peer: three real flaps of VETH_A's link.
                for _ in range(3):
                    sh("ip", "-n", NS_B, "link", "set", VETH_B, "down")
                    sh("ip", "-n", NS_B, "link", "set", VETH_B, "up")
                after_text = exporter.metrics()
                sh("ethtool", "-K", VETH_A, "gro", "on", ns=NS_A)
                gro_on = samples(exporter.metrics())
        finally:
            os.unlink(config)
        after = samples(after_text)
        self.assertEqual(promtool_check_metrics(after_text), "")
        self.assertEqual(after[down] - before[down], 3, after_text)
        self.assertEqual(after[up] - before[up], 3, after_text)
        self.assertEqual(after[gro], 0)
        self.assertEqual(gro_on[gro], 1)
        self.assertFalse([k for k in after if k.startswith("fabric_collector_device_errors")],
                         after_text)
        self.assert_flapping_fires(before[down], after[down])

    def assert_flapping_fires(self, before, after):
        """FabricLinkFlapping over the two scraped values: fires with the three
        flaps in the hour, not before them. The series starts at 0 with the
        scraped difference (a counter from a nonzero start is extrapolated by
        increase(), which would make the count in the description inexact)."""
        rules = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "rules",
                             "fabric-ladder.rules.yml")
        series = (f'fabric_netdev_carrier_transitions_total{{job="fabric",instance="n",'
                  f'device="{VETH_A}",role="other",transition="down"}}')
        test = f"""rule_files: [{rules}]
evaluation_interval: 5m
tests:
  - interval: 5m
    input_series:
      - series: '{series}'
        values: '0x6 {int(after - before)}x12'
    alert_rule_test:
      - eval_time: 25m
        alertname: FabricLinkFlapping
        exp_alerts: []
      - eval_time: 1h
        alertname: FabricLinkFlapping
        exp_alerts:
          - exp_labels: {{instance: n, device: {VETH_A}, role: other, severity: warning}}
            exp_annotations:
              summary: "An interface lost its carrier repeatedly."
              description: "{VETH_A} (other) on n went down 3 times in the last 1h."
              runbook_url: "https://github.com/fabric-ladder/fabric-ladder/blob/main/docs/runbooks.md#fabriclinkflapping"
"""
        with tempfile.NamedTemporaryFile("w", suffix=".test.yml", delete=False) as f:
            f.write(test)
        try:
            out = subprocess.run(["promtool", "test", "rules", f.name], capture_output=True,
                                 text=True, timeout=60)
        finally:
            os.unlink(f.name)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)


if __name__ == "__main__":
    if os.geteuid() != 0:
        print("skipping: network namespaces need root")
        sys.exit(SKIP)
    if not os.path.exists(EXPORTER):
        print("fabric_exporter not built: " + EXPORTER)
        sys.exit(1)
    unittest.main(verbosity=2)
