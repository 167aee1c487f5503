#!/usr/bin/env python3
"""The netdev and rdma collectors through the real binary over HTTP, on the
recorded NICs in tests/fixtures/nics: the typed mlx5 counters the shapes need,
the include flag for untyped driver statistics, and config errors."""
import os
import subprocess
import tempfile
import unittest

from fabric_testlib.exporter_process import EXPORTER, FIXTURES, Exporter, promtool_check_metrics, samples

NICS = os.path.join(FIXTURES, "nics")
PATHS = ["--path.procfs=" + os.path.join(NICS, "proc"), "--path.sysfs=" + os.path.join(NICS, "sys")]


def with_config(text):
    f = tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False)
    f.write(text)
    f.close()
    return f.name


class NetdevE2eTest(unittest.TestCase):
    def scrape(self, config_text):
        config = with_config(config_text)
        try:
            with Exporter(*PATHS, "--config.file=" + config) as exporter:
                body = exporter.metrics()
        finally:
            os.unlink(config)
        self.assertEqual(promtool_check_metrics(body), "")
        return samples(body)

    def test_shape_counters_typed_and_unknown_absent_by_default(self):
        got = self.scrape("collectors:\n  netdev:\n    enabled: true\n")
        dev = 'device="ens1f0np0"'
        self.assertEqual(got[f'fabric_netdev_driver_pause_frames_total{{{dev},direction="tx"}}'],
                         51234)
        self.assertEqual(got[f'fabric_netdev_phy_discards_total{{{dev},direction="rx"}}'], 4410)
        self.assertEqual(got[f'fabric_netdev_out_of_buffer_drops_total{{{dev},direction="rx"}}'],
                         18231)
        self.assertEqual(
            got[f'fabric_netdev_pci_signal_integrity_events_total{{{dev},direction="tx"}}'], 1471)
        self.assertEqual(got['fabric_netdev_driver_priority_pause_frames_total{device="ens1f1np1",'
                             'direction="tx",priority="3"}'], 3558)
        self.assertFalse([k for k in got if k.startswith("fabric_netdev_driver_statistic")])
        self.assertFalse([k for k in got if k.startswith("fabric_netdev_queue_")])
        self.assertEqual(got['fabric_scrape_collector_success{collector="netdev"}'], 1)
        self.assertEqual(got['fabric_scrape_collector_success{collector="rdma"}'], 1)

    def test_include_regex_exports_the_named_statistic_only(self):
        got = self.scrape("collectors:\n  netdev:\n    driver_stats_include: '^rx_cache_reuse$|"
                          "^tx_queue_stopped$'\n")
        untyped = sorted(k for k in got if k.startswith("fabric_netdev_driver_statistic"))
        self.assertEqual(untyped, [
            'fabric_netdev_driver_statistic{device="ens1f0np0",statistic="tx_queue_stopped"}',
            'fabric_netdev_driver_statistic{device="ens1f1np1",statistic="tx_queue_stopped"}',
        ])

    def test_include_by_flag(self):
        with Exporter(*PATHS, "--collector.netdev.driver-stats-include=^rx_cache_reuse$") as e:
            got = samples(e.metrics())
        untyped = sorted(k for k in got if k.startswith("fabric_netdev_driver_statistic"))
        self.assertEqual(untyped, [])  # mlx5 here has no rx_cache_reuse: nothing, no error.
        with Exporter(*PATHS, "--collector.netdev.driver-stats-include=^ch_poll$",
                      "--collector.netdev.queue-stats=false") as e:
            got = samples(e.metrics())
        self.assertEqual(got['fabric_netdev_driver_statistic{device="ens1f0np0",statistic="ch_poll"}'],
                         91230044)
        self.assertFalse([k for k in got if k.startswith("fabric_netdev_queue_")])

    def test_bad_settings_stop_start_up_naming_file_line_and_key(self):
        config = with_config("collectors:\n  netdev:\n    ethtool_source: guess\n")
        try:
            result = subprocess.run([EXPORTER, "--config.check", "--config.file=" + config] + PATHS,
                                    capture_output=True, text=True, timeout=30)
        finally:
            os.unlink(config)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn(config + ":3:", result.stderr)
        self.assertIn("collectors.netdev.ethtool_source", result.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
