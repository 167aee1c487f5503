#!/usr/bin/env python3
"""`cmake --install` of the ctest build tree into a DESTDIR, with the default-style prefix
/usr/local and the package's /usr: every file lands under the prefix (or /etc and
/lib/systemd/system for /usr), the unit's ExecStart names the installed binary and config,
and a second install keeps an edited config."""
import os
import subprocess
import tempfile
import unittest

SOURCE_DIR = os.environ["FABRIC_SOURCE_DIR"]
BUILD_DIR = os.environ["FABRIC_BUILD_DIR"]
UNIT = "lib/systemd/system/fabric-exporter.service"


def install(destdir, prefix):
    r = subprocess.run(["cmake", "--install", BUILD_DIR, "--prefix", prefix],
                       env=dict(os.environ, DESTDIR=destdir), capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError(r.stdout + r.stderr)
    with open(os.path.join(BUILD_DIR, "install_manifest.txt")) as f:
        return r.stdout, f.read().split()


def files_under(root):
    return sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _, names in os.walk(root) for f in names)


class InstallTest(unittest.TestCase):
    def test_prefix_usr_local(self):
        with tempfile.TemporaryDirectory() as dest:
            _, manifest = install(dest, "/usr/local")
            files = files_under(dest)
            self.assertEqual([f for f in files if not f.startswith("usr/local/")], [])
            self.assertEqual(sorted(p.lstrip("/") for p in manifest), files)
            for path in ("usr/local/bin/fabric_exporter", "usr/local/share/man/man1/fabric_probe.1",
                         "usr/local/share/fabric-ladder/dashboards/fabric-ladder.json",
                         "usr/local/share/fabric-ladder/rules/fabric-ladder.rules.yml",
                         "usr/local/lib/sysusers.d/fabric-ladder.conf",
                         "usr/local/lib/tmpfiles.d/fabric-ladder.conf",
                         "usr/local/etc/fabric-ladder/fabric_exporter.yml",
                         "usr/local/etc/fabric-ladder/fleet.yml"):
                self.assertIn(path, files)
            with open(os.path.join(dest, "usr/local", UNIT)) as f:
                unit = f.read()
            self.assertIn("\nExecStart=/usr/local/bin/fabric_exporter "
                          "--config.file=/usr/local/etc/fabric-ladder/fabric_exporter.yml\n", unit)

    def test_prefix_usr_is_the_packaged_layout(self):
        with tempfile.TemporaryDirectory() as dest:
            install(dest, "/usr")
            files = files_under(dest)
            self.assertEqual(sorted({f.split("/")[0] for f in files}), ["etc", "lib", "usr"])
            self.assertEqual([f for f in files if f.startswith(("etc/", "lib/"))],
                             ["etc/fabric-ladder/fabric_exporter.yml", "etc/fabric-ladder/fleet.yml",
                              UNIT])
            with open(os.path.join(dest, UNIT)) as f, \
                    open(os.path.join(SOURCE_DIR, "deploy", "systemd", "fabric-exporter.service")) as g:
                self.assertEqual(f.read(), g.read())

    def test_an_edited_config_is_kept(self):
        with tempfile.TemporaryDirectory() as dest:
            install(dest, "/usr")
            config = os.path.join(dest, "etc/fabric-ladder/fabric_exporter.yml")
            with open(config, "a") as f:
                f.write("# edited\n")
            out, manifest = install(dest, "/usr")
            self.assertIn("Keeping edited: " + config, out)
            self.assertNotIn("/etc/fabric-ladder/fabric_exporter.yml", manifest)
            with open(config) as f:
                self.assertTrue(f.read().endswith("# edited\n"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
