#!/usr/bin/env python3
"""Faults in what the collectors read, on copies of the fixture trees (no root):
a file whose read(2) fails with EIO, and a PCI device directory removed and
recreated while scrapes walk the tree. Every scrape must still answer 200 with
a well-formed exposition; the collector that hit the fault reports
fabric_scrape_collector_success 0 alone and the log names the file."""
import json
import os
import shutil
import sys
import tempfile
import threading
import unittest

from fabric_testlib.exporter_process import FIXTURES, Exporter, promtool_check_metrics, samples

# A real EIO without a mock: /proc/self/mem read at offset 0 asks the kernel
# for the opener's own page 0, which is never mapped, and read(2) fails with
# EIO (mem_rw() copies nothing). As a symlink in a fixture tree it turns one
# sysfs or procfs file into one whose every read is an I/O error, in whichever
# process opens it, the exporter here.
EIO_SOURCE = "/proc/self/mem"


def copy_fixture(tmp, tree):
    """Copies tests/fixtures/<tree> (and the pci.ids its config names as
    ../pci.ids) under tmp; returns the copy's root."""
    root = os.path.join(tmp, tree)
    shutil.copytree(os.path.join(FIXTURES, tree), root, symlinks=True)
    shutil.copy(os.path.join(FIXTURES, "pci.ids"), tmp)
    return root


def tree_args(root):
    args = ["--path.sysfs=" + os.path.join(root, "sys"),
            "--config.file=" + os.path.join(root, "fabric_exporter.yml")]
    if os.path.isdir(os.path.join(root, "proc")):
        args.append("--path.procfs=" + os.path.join(root, "proc"))
    return args


def collector_success(body):
    prefix = 'fabric_scrape_collector_success{collector="'
    return {series[len(prefix):-2]: value for series, value in samples(body).items()
            if series.startswith(prefix)}


def failure_logs(exporter):
    records = [json.loads(line) for line in exporter.log_lines if line.startswith("{")]
    return [r for r in records if r.get("msg") == "collector failed"]


class EioTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="fx-eio-")
        self.root = copy_fixture(self.tmp.name, "h200")

    def tearDown(self):
        self.tmp.cleanup()

    def break_file(self, relative):
        path = os.path.join(self.root, relative)
        self.assertTrue(os.path.isfile(path), path)
        os.unlink(path)
        os.symlink(EIO_SOURCE, path)
        with self.assertRaises(OSError) as caught:  # The fault is real: EIO here too.
            with open(path, "rb") as f:
                f.read(4096)
        self.assertEqual(caught.exception.errno, 5)

    def assert_fails_alone(self, collector, relative):
        with Exporter(*tree_args(self.root)) as e:
            for _ in range(3):  # Every scrape, not only the first, and no crash in between.
                status, _, body = e.get("/metrics")
                self.assertEqual(status, 200)
                self.assertEqual(promtool_check_metrics(body), "")
                success = collector_success(body)
                self.assertEqual(success.pop(collector), 0)
                self.assertTrue(success, "other collectors are still reported")
                self.assertEqual({c: v for c, v in success.items() if v != 1}, {},
                                 "only the collector reading the broken file fails")
            e.wait_for_log("Input/output error")
            failures = failure_logs(e)
            self.assertEqual({r["collector"] for r in failures}, {collector})
            for r in failures:
                self.assertIn(relative, r["err"])
                self.assertIn("Input/output error", r["err"])
            self.assertIsNone(e.proc.poll())

    def assert_only_the_device_fails(self, collector, device, source, relative, kept=()):
        """Failure isolation per device: the collector still succeeds, the
        broken device's source is named in fabric_collector_device_errors and
        in one log line, and the scrape goes on for every scrape. `kept`: series
        of the broken device from its other sources, which must stay."""
        series = (f'fabric_collector_device_errors{{collector="{collector}",device="{device}",'
                  f'source="{source}"}}')
        with Exporter(*tree_args(self.root)) as e:
            for _ in range(3):
                status, _, body = e.get("/metrics")
                self.assertEqual(status, 200)
                self.assertEqual(promtool_check_metrics(body), "")
                success = collector_success(body)
                self.assertEqual({c: v for c, v in success.items() if v != 1}, {},
                                 "a broken device source fails no collector")
                got = samples(body)
                self.assertEqual(got.get(series), 1, body)
                errors = [s for s in got if s.startswith("fabric_collector_device_errors{")]
                self.assertEqual(errors, [series])
                for k in kept:
                    self.assertIn(k, got, "the device's other families stay")
            e.wait_for_log("Input/output error")
            records = [json.loads(line) for line in e.log_lines if line.startswith("{")]
            failed = [r for r in records if r.get("msg", "").startswith("device source failed")]
            self.assertEqual(len(failed), 1, "logged once, not every scrape")
            self.assertEqual((failed[0]["collector"], failed[0]["device"], failed[0]["source"]),
                             (collector, device, source))
            self.assertIn(relative, failed[0]["err"])
            self.assertEqual(failure_logs(e), [])
            self.assertIsNone(e.proc.poll())

    def test_procfs_table_read_eio(self):
        self.break_file("proc/net/softnet_stat")
        self.assert_fails_alone("softnet", "proc/net/softnet_stat")

    def test_sysfs_attribute_read_eio(self):
        self.break_file("sys/class/net/eth0/statistics/rx_bytes")
        self.assert_only_the_device_fails("netdev", "eth0", "statistics",
                                          "class/net/eth0/statistics/rx_bytes")

    def test_pci_attribute_read_eio(self):
        device = os.path.realpath(os.path.join(self.root, "sys/bus/pci/devices/0000:00:03.0"))
        relative = os.path.relpath(os.path.join(device, "vendor"), self.root)
        self.break_file(relative)
        self.assert_only_the_device_fails("pcie", "0000:00:03.0", "sysfs", "0000:00:03.0/vendor")

    def test_pci_aspm_read_eio(self):
        """An unreadable ASPM state drops only the GPU's ASPM family: its link
        (and so its PCIe path) is still there."""
        relative = "sys/devices/pci0000:00/0000:00:06.0/link/l1_aspm"
        self.break_file(relative)
        self.assert_only_the_device_fails(
            "pcie", "0000:00:06.0", "aspm", "0000:00:06.0/link/l1_aspm",
            kept=['fabric_pcie_link_current_width_lanes{address="0000:00:06.0"}',
                  'fabric_pcie_path_hops{address="0000:00:06.0"}'])


class StorageClientEioTest(unittest.TestCase):
    """The same faults on the NFS and NVMe-oF client tree (tests/fixtures/nfs-rdma): an
    unreadable mountstats fails the nfs collector alone; an unreadable namespace stat drops
    only that NVMe-oF controller's byte counters."""
    break_file = EioTest.break_file
    assert_fails_alone = EioTest.assert_fails_alone
    assert_only_the_device_fails = EioTest.assert_only_the_device_fails

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="fx-eio-")
        self.root = copy_fixture(self.tmp.name, "nfs-rdma")

    def tearDown(self):
        self.tmp.cleanup()

    def test_mountstats_read_eio(self):
        self.break_file("proc/self/mountstats")
        self.assert_fails_alone("nfs", "proc/self/mountstats")

    def test_nvme_namespace_stat_read_eio(self):
        self.break_file("sys/devices/virtual/nvme-fabrics/ctl/nvme1/nvme1c1n1/stat")
        self.assert_only_the_device_fails(
            "nvmeof", "nvme1", "namespace_stat", "nvme1/nvme1c1n1/stat",
            kept=['fabric_nvmeof_controller_live{controller="nvme1",target="10.10.0.20",'
                  'transport="rdma"}'])


class PciDeviceVanishesTest(unittest.TestCase):
    """A switch downstream port and the NIC behind it are removed and put back
    (all at once by rename, and file by file by rmtree/copytree, so scrapes
    also meet half-populated directories) while the exporter is scraped."""

    PORT = "sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:02.0"
    SCRAPES = 60

    def test_scrapes_stay_well_formed(self):
        with tempfile.TemporaryDirectory(prefix="fx-pci-") as tmp:
            root = copy_fixture(tmp, "pcie-switch")
            port = os.path.join(root, self.PORT)
            backup = os.path.join(tmp, "port-backup")
            shutil.copytree(port, backup, symlinks=True)
            with Exporter(*tree_args(root)) as e:
                baseline = e.metrics()
                self.assertIn('address="0000:05:00.0"', baseline)
                stop = threading.Event()
                churns = [0]

                def churn():
                    while not stop.is_set():
                        if churns[0] % 2:
                            os.rename(port, port + ".gone")
                            os.rename(port + ".gone", port)
                        else:
                            shutil.rmtree(port)
                            shutil.copytree(backup, port, symlinks=True)
                        churns[0] += 1

                thread = threading.Thread(target=churn)
                thread.start()
                outcomes = []
                seen_without = 0
                try:
                    for _ in range(self.SCRAPES):
                        status, _, body = e.get("/metrics")
                        self.assertEqual(status, 200)
                        self.assertEqual(promtool_check_metrics(body), "")
                        outcomes.append(collector_success(body)["pcie"])
                        seen_without += 'address="0000:05:00.0"' not in body
                finally:
                    stop.set()
                    thread.join()
                self.assertGreater(churns[0], self.SCRAPES, "the device really came and went")
                self.assertIsNone(e.proc.poll())
                # A failed scrape says why, naming the device's files.
                for r in failure_logs(e):
                    self.assertEqual(r["collector"], "pcie")
                    self.assertIn("0000:0", r["err"])
                print(f"pcie collector success in {outcomes.count(1)}/{len(outcomes)} scrapes, "
                      f"NIC absent in {seen_without}, over {churns[0]} removals", file=sys.stderr)
                # The scrapes really met the vanished device (else this tests nothing).
                self.assertGreater(seen_without + outcomes.count(0), 0)
                # Once the device is back for good, so is every series.
                after = e.metrics()
                strip = lambda body: {s for s in samples(body) if "duration_seconds" not in s}
                self.assertEqual(strip(after), strip(baseline))


if __name__ == "__main__":
    unittest.main(verbosity=2)
