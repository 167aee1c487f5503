#!/usr/bin/env python3
"""The man pages the build generated (deploy/man/make_man.py, from each binary's --help) are in
sync with the built binaries: a fresh generation gives the same page, every flag of every
--help (fabric_probe's commands' too) is in it, and groff formats it without a warning.
Includes a self-test: a page with one flag deleted must be caught."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

SOURCE_DIR = os.environ["FABRIC_SOURCE_DIR"]
MAN_DIR = os.environ["FABRIC_MAN_DIR"]
BINARIES = {"fabric_exporter": os.environ["FABRIC_EXPORTER"],
            "fabric_probe": os.environ["FABRIC_PROBE"]}
MAKE_MAN = os.path.join(SOURCE_DIR, "deploy", "man", "make_man.py")
FLAG = re.compile(r"(?<![\w-])--[\w\[][\w.\[\]-]*")


def help_texts(binary):
    """--help of the binary and of each command it lists under "Commands:"."""
    top = subprocess.run([binary, "--help"], capture_output=True, text=True, check=True).stdout
    texts = [top]
    commands = top.split("\nCommands:\n", 1)
    if len(commands) == 2:
        for name in re.findall(r"^  ([a-z][\w-]*)  ", commands[1].split("\n\n")[0], re.M):
            r = subprocess.run([binary, name, "--help"], capture_output=True, text=True)
            texts.append(r.stdout)
    return texts


def plain(roff):
    """The page's text as typed: minus signs as dashes, font changes dropped."""
    return re.sub(r"\\f[BIRP]", "", roff).replace("\\-", "-").replace("\\&", "").replace("\\e", "\\")


def missing_flags(binary, roff):
    text = plain(roff)
    flags = {f for h in help_texts(binary) for f in FLAG.findall(h)}
    return sorted(f for f in flags if f not in text)


class ManPagesTest(unittest.TestCase):
    def page(self, name):
        with open(os.path.join(MAN_DIR, name + ".1")) as f:
            return f.read()

    def test_page_is_a_fresh_generation(self):
        for name, binary in BINARIES.items():
            page = self.page(name)
            th = re.search(r'^\.TH \S+ 1 "([^"]*)" "fabric-ladder (\S+)"', page, re.M)
            self.assertIsNotNone(th, name)
            with tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, name + ".1")
                subprocess.run([sys.executable, MAKE_MAN, binary, "--version", th.group(2),
                                "--date", th.group(1), "--output", out], check=True)
                with open(out) as f:
                    self.assertEqual(f.read(), page, f"{name}.1 is stale: rebuild")

    def test_every_flag_of_help_is_in_the_page(self):
        for name, binary in BINARIES.items():
            self.assertEqual(missing_flags(binary, self.page(name)), [], name)
        probe = self.page("fabric_probe")
        for command in ("storage", "serve", "tcp", "rdma", "ladder"):
            self.assertIn(f'.SS "{command}"', probe)

    def test_a_dropped_flag_is_caught(self):
        page = self.page("fabric_exporter")
        self.assertIn("\\fB\\-\\-config.check\\fR", page)
        broken = page.replace("\\fB\\-\\-config.check\\fR", "\\fB\\-\\-config.chek\\fR")
        self.assertEqual(missing_flags(BINARIES["fabric_exporter"], broken), ["--config.check"])

    def test_groff_formats_without_warnings(self):
        if shutil.which("groff") is None:
            self.skipTest("groff is not installed")
        for name in BINARIES:
            r = subprocess.run(["groff", "-man", "-ww", "-z", os.path.join(MAN_DIR, name + ".1")],
                               capture_output=True, text=True)
            self.assertEqual((r.returncode, r.stderr), (0, ""), name)


if __name__ == "__main__":
    unittest.main(verbosity=2)
