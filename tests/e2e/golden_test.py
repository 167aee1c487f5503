#!/usr/bin/env python3
"""Golden exposition test (tests/README.md, layer 2): the whole exporter over each
golden tree tests/fixtures/<tree> (GOLDEN_TREES: other fixture trees, such as
the RDMA probe's rdma-*, are no exporter hosts), compared with
tests/golden/<tree>.prom after normalisation, and linted with promtool.
UPDATE_GOLDEN=1 rewrites the golden files instead of comparing."""
import difflib
import os
import unittest

from fabric_testlib.exporter_process import FIXTURES, SOURCE_DIR, Exporter, fixture_args, promtool_check_metrics
from fabric_testlib.normalize_exposition import normalize

GOLDEN_DIR = os.path.join(SOURCE_DIR, "tests", "golden")


# Every tree here has a golden file, and every golden file a tree here.
GOLDEN_TREES = [
    "h200",
    "nfs-rdma",
    "nics",
    "pcie-downtrained-x8",
    "pcie-gen5-in-gen4",
    "pcie-healthy",
    "pcie-link-unknown",
    "pcie-switch",
    "pcie-x4-slot",
]


def trees():
    return GOLDEN_TREES


class GoldenTest(unittest.TestCase):
    def test_every_fixture_tree_matches_its_golden_file(self):
        self.assertTrue(trees(), "no fixture trees found")
        for tree in trees():
            with self.subTest(tree=tree):
                with Exporter(*fixture_args(tree)) as exporter:
                    raw = exporter.metrics()
                    second = exporter.metrics()
                self.assertEqual(promtool_check_metrics(raw), "", f"promtool on {tree}")
                got = normalize(raw)
                self.assertEqual(got, normalize(second), "two scrapes of one tree differ")
                golden = os.path.join(GOLDEN_DIR, tree + ".prom")
                if os.environ.get("UPDATE_GOLDEN") == "1":
                    with open(golden, "w") as f:
                        f.write(got)
                    continue
                self.assertTrue(os.path.exists(golden),
                                f"{golden} is missing: run with UPDATE_GOLDEN=1 and review it")
                with open(golden) as f:
                    want = f.read()
                if got != want:
                    diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                                        golden, "served", n=1))
                    self.fail(f"{tree}: exposition differs from {golden} "
                              f"(UPDATE_GOLDEN=1 rewrites it):\n{diff[:6000]}")

    def test_the_list_names_the_golden_files(self):
        for tree in trees():
            self.assertTrue(os.path.isdir(os.path.join(FIXTURES, tree)), f"no tree tests/fixtures/{tree}")
        on_disk = sorted(f[:-len(".prom")] for f in os.listdir(GOLDEN_DIR) if f.endswith(".prom"))
        self.assertEqual(on_disk, sorted(trees()),
                         "tests/golden/*.prom and GOLDEN_TREES in this test disagree")

    def test_no_collector_fails_on_any_fixture_tree(self):
        for tree in trees():
            with self.subTest(tree=tree):
                with Exporter(*fixture_args(tree)) as exporter:
                    body = exporter.metrics()
                failed = [l for l in body.splitlines()
                          if l.startswith("fabric_scrape_collector_success") and l.endswith(" 0")]
                self.assertEqual(failed, [], "\n".join(exporter.log_lines))


if __name__ == "__main__":
    unittest.main(verbosity=2)
