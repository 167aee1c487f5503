#!/usr/bin/env python3
"""The exporter over a large synthetic host (tests/tools/make_large_fixture.py,
generated into a temporary directory: 128 CPUs, 16 NICs with 400 driver
statistics each, 256 PCI devices, 8 RoCE ports) with every default collector:
each collector succeeds and reports one series per CPU, NIC, port and PCIe
endpoint, and the exposition passes promtool."""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

from fabric_testlib.exporter_process import SOURCE_DIR, Exporter, promtool_check_metrics, samples

# The generator is a tool with a command line; it prints the shape it wrote as JSON.
GENERATOR = os.path.join(SOURCE_DIR, "tests", "tools", "make_large_fixture.py")


def count(series, name):
    return sum(1 for s in series if s == name or s.startswith(name + "{"))


def label_values(series, name, label):
    out = set()
    for s in series:
        if s.startswith(name + "{"):
            out.update(re.findall(label + r'="([^"]*)"', s))
    return out


class LargeFixtureTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="fabric-large-")
        root = os.path.join(cls.tmp.name, "host")
        cls.shape = json.loads(subprocess.run([sys.executable, GENERATOR, root], check=True,
                                              capture_output=True, text=True).stdout)
        with Exporter("--path.procfs=" + os.path.join(root, "proc"),
                      "--path.sysfs=" + os.path.join(root, "sys"),
                      "--config.file=" + os.path.join(root, "fabric_exporter.yml")) as e:
            cls.body = e.metrics()
        cls.series = samples(cls.body)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_shape_is_what_was_asked_for(self):
        self.assertEqual((self.shape["cpus"], self.shape["nics"], self.shape["pci_devices"],
                          self.shape["rdma_ports"], self.shape["driver_stats_per_nic"]),
                         (128, 16, 256, 8, 400))

    def test_every_collector_succeeds(self):
        success = {s: v for s, v in self.series.items()
                   if s.startswith("fabric_scrape_collector_success{")}
        # The ten default collectors and the exporter's own process series.
        self.assertEqual(len(success), 11, success)
        self.assertTrue(all(v == 1 for v in success.values()), success)

    def test_one_series_per_cpu_nic_port_and_endpoint(self):
        s = self.series
        for name in ("fabric_softnet_processed_total", "fabric_softnet_dropped_total",
                     "fabric_softnet_time_squeeze_total"):
            self.assertEqual(count(s, name), 128, name)
        self.assertEqual(label_values(s, "fabric_softnet_processed_total", "cpu"),
                         {str(c) for c in range(128)})
        self.assertEqual(count(s, "fabric_netdev_info"), 16)
        self.assertEqual(label_values(s, "fabric_netdev_info", "device"),
                         set(self.shape["netdevs"]))
        self.assertEqual(count(s, "fabric_netdev_bytes_total"), 32)  # rx and tx.
        # Typed from the 400 recorded driver statistics of each NIC.
        self.assertEqual(count(s, "fabric_netdev_driver_pause_frames_total"), 32)
        self.assertEqual(count(s, "fabric_netdev_phy_discards_total"), 32)
        self.assertEqual(count(s, "fabric_rdma_port_info"), 8)
        self.assertEqual(label_values(s, "fabric_rdma_port_info", "device"),
                         set(self.shape["rdma_devices"]))
        self.assertEqual(count(s, "fabric_rdma_cnp_sent_total"), 8)
        self.assertEqual(count(s, "fabric_pcie_path_hops"), self.shape["pcie_endpoints"])
        self.assertEqual(count(s, "fabric_pcie_netdev_info"), 16)
        self.assertEqual(count(s, "fabric_pcie_rdma_device_info"), 8)
        # Every endpoint sits behind a switch: two links (endpoint to the
        # switch's downstream port, switch to the root port).
        self.assertEqual({v for k, v in s.items() if k.startswith("fabric_pcie_path_hops{")},
                         {2.0})

    def test_promtool_accepts_the_exposition(self):
        self.assertEqual(promtool_check_metrics(self.body), "")


if __name__ == "__main__":
    unittest.main(verbosity=2)
