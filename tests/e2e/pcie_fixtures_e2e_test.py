#!/usr/bin/env python3
"""The real fabric_exporter over each PCIe fixture tree: the verdicts the
issue asks for (field shape 14), asserted on the served exposition."""
import unittest

from fabric_testlib.exporter_process import Exporter, fixture_args, samples


def scrape(tree):
    with Exporter(*fixture_args(tree), "--collector.disable-defaults", "--collector.pcie") as e:
        return samples(e.metrics())


def flagged(s):
    """Series that say something is wrong with a PCIe path."""
    names = ("fabric_pcie_path_slot_limited{", "fabric_pcie_path_downtrained_hops{",
             "fabric_pcie_hop_downtrained{")
    return {k: v for k, v in s.items() if k.startswith(names) and v != 0}


class PcieFixturesTest(unittest.TestCase):
    def test_x4_slot_is_slot_limited_below_200gbe(self):
        s = scrape("pcie-x4-slot")
        nic = 'address="0000:02:00.0"'
        self.assertEqual(s[f"fabric_pcie_path_slot_limited{{{nic}}}"], 1)
        self.assertLess(s[f"fabric_pcie_path_current_bandwidth_bytes_per_second{{{nic}}}"], 25e9)
        self.assertLess(s[f"fabric_pcie_path_capable_bandwidth_bytes_per_second{{{nic}}}"], 25e9)
        self.assertAlmostEqual(
            s[f"fabric_pcie_path_current_bandwidth_bytes_per_second{{{nic}}}"] * 8 / 1e9, 63.0, 1)
        self.assertEqual(list(flagged(s)), [f"fabric_pcie_path_slot_limited{{{nic}}}"])

    def test_x8_link_is_a_downtrained_hop(self):
        s = scrape("pcie-downtrained-x8")
        self.assertEqual(flagged(s), {
            'fabric_pcie_hop_downtrained{address="0000:c1:00.0",dimension="width",'
            'upstream="0000:c0:03.1"}': 1,
            'fabric_pcie_path_downtrained_hops{address="0000:c1:00.0"}': 1,
        })

    def test_switch_uplink_is_the_bottleneck_of_every_device_below_it(self):
        s = scrape("pcie-switch")
        for endpoint in ("0000:03:00.0", "0000:05:00.0"):
            key = (f'fabric_pcie_path_bottleneck_info{{address="{endpoint}",hop="0000:01:00.0",'
                   f'upstream="0000:00:01.1"}}')
            self.assertEqual(s.get(key), 1, key)
        self.assertEqual(s['fabric_pcie_path_hops{address="0000:03:00.0"}'], 2)

    def test_healthy_gen5_in_gen4_and_h200_flag_nothing(self):
        for tree in ("pcie-healthy", "pcie-gen5-in-gen4", "h200"):
            with self.subTest(tree=tree):
                s = scrape(tree)
                self.assertEqual(flagged(s), {})
                self.assertTrue(any(k.startswith("fabric_pcie_path_current_bandwidth") for k in s))


if __name__ == "__main__":
    unittest.main(verbosity=2)
