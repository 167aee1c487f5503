#!/usr/bin/env python3
"""The include-direction checker fails on what it exists to catch: a copy of
the source trees passes unchanged, and each planted violation (an
active-probes file including exporter/, a lower layer including a higher one,
an include of a folder not in the table, a source in an unknown folder) makes
it fail naming the planted file and line."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "include_direction_test.py")
SRC = os.environ.get("FABRIC_SOURCE_DIR", os.path.join(HERE, "..", ".."))
TREES = ("common", "active-probes", "exporter")


def copy_sources(dst):
    def ignore(directory, names):
        return [n for n in names
                if not os.path.isdir(os.path.join(directory, n)) and not n.endswith((".cc", ".h"))]
    for tree in TREES:
        shutil.copytree(os.path.join(SRC, tree), os.path.join(dst, tree), ignore=ignore)


def check(root):
    r = subprocess.run([sys.executable, CHECKER, root], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


class IncludeDirectionSelfTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="fabric-includes-")
        self.root = self.tmp.name
        copy_sources(self.root)

    def tearDown(self):
        self.tmp.cleanup()

    def plant(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def test_the_clean_copy_passes(self):
        rc, out = check(self.root)
        self.assertEqual(rc, 0, out)

    def test_active_probes_including_exporter_fails_naming_file_and_line(self):
        self.plant("active-probes/tcp/x.cc",
                   '#include "active-probes/tcp/tcp_probe.h"\n'
                   '#include "exporter/metrics/metric_sink.h"\n')
        rc, out = check(self.root)
        self.assertEqual(rc, 1, out)
        self.assertIn("active-probes/tcp/x.cc:2:", out)
        self.assertIn("exporter/metrics", out)
        self.assertNotIn("x.cc:1:", out, "the allowed include on line 1 was reported")

    def test_a_lower_layer_including_a_higher_one_fails(self):
        # common/read may include common only, not its sibling common/parse.
        with open(os.path.join(self.root, "common", "read", "sysroot.cc"), "a") as f:
            f.write('#include "common/parse/sysfs_values.h"\n')
        rc, out = check(self.root)
        self.assertEqual(rc, 1, out)
        self.assertIn("common/read/sysroot.cc:", out)
        self.assertIn("may not include common/parse/", out)

    def test_an_include_of_an_unknown_folder_fails(self):
        self.plant("exporter/metrics/y.cc", '#include "exporter/core/sysroot.h"\n')
        rc, out = check(self.root)
        self.assertEqual(rc, 1, out)
        self.assertIn("exporter/metrics/y.cc:1:", out)
        self.assertIn("exporter/core/", out)

    def test_a_source_in_an_unknown_folder_fails(self):
        self.plant("exporter/newthing/z.cc", '#include "common/log.h"\n')
        rc, out = check(self.root)
        self.assertEqual(rc, 1, out)
        self.assertIn("exporter/newthing/z.cc:1:", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
