#!/usr/bin/env python3
"""The committed PCIe fixture trees are what tests/tools/make_pcie_fixtures.py
writes: regenerating them into a temporary directory gives the same files,
file contents and symlink targets, so nobody edits one without the other."""
import os
import subprocess
import sys
import tempfile
import unittest

SOURCE_DIR = os.environ.get(
    "FABRIC_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
FIXTURES = os.path.join(SOURCE_DIR, "tests", "fixtures")
GENERATOR = os.path.join(SOURCE_DIR, "tests", "tools", "make_pcie_fixtures.py")


def snapshot(root):
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            if os.path.islink(path):
                out[rel] = ("link", os.readlink(path))
            elif os.path.isfile(path):
                with open(path, "rb") as f:
                    out[rel] = ("file", f.read())
    return out


class FixtureGeneratorTest(unittest.TestCase):
    def test_committed_trees_match_the_generator(self):
        with tempfile.TemporaryDirectory(prefix="fabric-pcie-fixtures-") as tmp:
            subprocess.run([sys.executable, GENERATOR, tmp], check=True)
            trees = sorted(os.listdir(tmp))
            self.assertGreaterEqual(len(trees), 6)
            for tree in trees:
                with self.subTest(tree=tree):
                    want = snapshot(os.path.join(tmp, tree))
                    got = snapshot(os.path.join(FIXTURES, tree))
                    self.assertEqual(sorted(set(want) ^ set(got)), [],
                                     "files differ; rerun " + GENERATOR)
                    for rel in want:
                        self.assertEqual(got[rel], want[rel], rel)


if __name__ == "__main__":
    unittest.main(verbosity=2)
