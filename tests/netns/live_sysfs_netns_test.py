#!/usr/bin/env python3
"""The exporter keeps sysfs attribute files open between scrapes
(--path.keep-files-open, the default; common/read/open_file_cache.h). On a
real sysfs, in a network namespace of its own with a veth pair: a value
changed in place (an MTU) is seen on the next scrape; two interfaces that
swap names are each reported with their own values (the cached files of the
old name must not be read for the new device); deleted interfaces disappear
and their descriptors are closed within two scrapes."""
import os
import tempfile
import unittest

from fabric_testlib.exporter_process import Exporter, samples
from fabric_testlib.netns import Namespaces, ip, require_root

NS = "flof"
CONFIG = """
collectors:
  netdev: {device_include: '^flof'}
  flows: {enabled: false}
  pcie: {enabled: false}
"""


def mtus(body):
    s = samples(body)
    return {dev: int(s[f'fabric_netdev_mtu_bytes{{device="{dev}"}}'])
            for dev in ("flof0", "flof1") if f'fabric_netdev_mtu_bytes{{device="{dev}"}}' in s}


def sysfs_fds(pid):
    """The exporter's descriptors of the test interfaces' sysfs files and directories."""
    out = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except FileNotFoundError:
            continue
        if target.startswith("/sys/") and "/flof" in target:
            out.append(target)
    return out


class LiveSysfsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_root()
        cls.ns = Namespaces(NS).__enter__()
        cls.tmp = tempfile.TemporaryDirectory()
        cls.config = os.path.join(cls.tmp.name, "fabric_exporter.yml")
        with open(cls.config, "w") as f:
            f.write(CONFIG)

    @classmethod
    def tearDownClass(cls):
        cls.ns.__exit__(None, None, None)
        cls.tmp.cleanup()

    def test_values_renames_and_removals_are_seen(self):
        with Exporter("--config.file=" + self.config, netns=NS) as e:
            e.metrics()
            self.assertEqual(sysfs_fds(e.proc.pid), [])
            ip("-n", NS, "link", "add", "flof0", "mtu", "1400", "type", "veth", "peer", "name",
               "flof1", "mtu", "1300")
            self.assertEqual(mtus(e.metrics()), {"flof0": 1400, "flof1": 1300})
            kept = sysfs_fds(e.proc.pid)
            self.assertIn("/sys/devices/virtual/net/flof0/mtu", kept)
            self.assertIn("/sys/devices/virtual/net/flof1/statistics/rx_bytes", kept)

            ip("-n", NS, "link", "set", "flof0", "mtu", "1450")
            self.assertEqual(mtus(e.metrics()), {"flof0": 1450, "flof1": 1300})

            # Swap the names: class/net/flof0 now leads to the other device.
            ip("-n", NS, "link", "set", "flof0", "name", "flofx")
            ip("-n", NS, "link", "set", "flof1", "name", "flof0")
            ip("-n", NS, "link", "set", "flofx", "name", "flof1")
            for _ in range(3):
                self.assertEqual(mtus(e.metrics()), {"flof0": 1300, "flof1": 1450})

            ip("-n", NS, "link", "del", "flof0")
            self.assertEqual(mtus(e.metrics()), {})
            e.metrics()
            e.metrics()
            self.assertEqual(sysfs_fds(e.proc.pid), [],
                             "the deleted pair's attribute files are closed")


if __name__ == "__main__":
    unittest.main(verbosity=2)
