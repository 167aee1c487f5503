#!/usr/bin/env python3
"""Golden exposition test (DESIGN.md layer 3): the whole exporter over each
fixture tree tests/fixtures/<tree>, compared with tests/golden/<tree>.prom
after normalisation, and linted with promtool. UPDATE_GOLDEN=1 rewrites the
golden files instead of comparing."""
import difflib
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from exporter_process import FIXTURES, SOURCE_DIR, Exporter, fixture_args, promtool_check_metrics  # noqa: E402
from normalize_exposition import normalize  # noqa: E402

GOLDEN_DIR = os.path.join(SOURCE_DIR, "tests", "golden")


def trees():
    return sorted(d for d in os.listdir(FIXTURES) if os.path.isdir(os.path.join(FIXTURES, d)))


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
