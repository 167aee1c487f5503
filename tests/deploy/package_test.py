#!/usr/bin/env python3
"""ctest -R package (label deploy): the Debian package, built from this ctest build tree without
compiling (scripts/package --build-dir), is what `cmake --install` installs and behaves as
Debian policy says.

1. scripts/package builds it and runs lintian (any warning or error fails it).
2. Its file list is the install manifest of `cmake --install --prefix /usr` into a staging
   directory (man pages and docs gzipped by dh_compress; plus copyright and changelog), every
   /etc file is a conffile, and every library the binaries link is in Depends.
3. It is installed into a throw-away root: an overlay of this machine's root file system (upper
   layer on a tmpfs) in a private mount namespace, so dpkg resolves the real dependencies and the
   real systemd-sysusers and systemd-tmpfiles run, while nothing is written to the machine; the
   namespace's mounts go with this process however it ends.
4. The installed binary: `fabric_exporter --config.check` on the packaged config and the fleet
   nodes file beside it (with the probe secret an operator creates) and a scrape over the `nics` fixture tree, which must pass
   `promtool check metrics`, both as the service user.
5. `dpkg --remove` keeps the conffiles and only them; `dpkg --purge` leaves nothing of the package
   (its files, directories, state and deb-systemd-helper records): the overlay's upper layer may
   then hold only dpkg's own records and the service user (Debian keeps system users).

Needs root, dpkg-dev, debhelper, lintian, promtool and util-linux; exit 77 without them.
"""
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest
import urllib.request

SOURCE_DIR = os.environ.get(
    "FABRIC_SOURCE_DIR",
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BUILD_DIR = os.environ.get("FABRIC_BUILD_DIR", os.path.join(SOURCE_DIR, "build-test"))
TOOLS = ["dpkg", "dpkg-deb", "dpkg-buildpackage", "dh", "lintian", "promtool", "unshare", "chroot",
         "mount", "cmake", "readelf", "ldd"]
NAMESPACE_MARK = "FABRIC_PACKAGE_TEST_PRIVATE_MOUNTS"
CONFIG = "/etc/fabric-ladder/fabric_exporter.yml"
FLEET = "/etc/fabric-ladder/fleet.yml"  # The config's fleet.nodes_file.
SECRET = "/etc/fabric-ladder/probe.secret"
DSH_STATE = "/var/lib/systemd/deb-systemd-helper-enabled/fabric-exporter.service.dsh-also"
# What may stay in the upper layer after a purge (paths relative to the root): dpkg's records
# and log, man-db's index (its trigger), and the system user with its group.
ALLOWED_AFTER_PURGE = re.compile(
    r"^(var/lib/dpkg/.*|var/log/dpkg\.log|var/cache/man/.*|"
    r"etc/(passwd|group|shadow|gshadow)-?|etc/\.pwd\.lock)$")


def run(*argv, check=True, **kw):
    r = subprocess.run(argv, capture_output=True, text=True, **kw)
    if check and r.returncode != 0:
        raise AssertionError(f"{' '.join(argv)} exited {r.returncode}:\n{r.stdout[-4000:]}{r.stderr[-4000:]}")
    return r


def deb_paths(deb):
    """The package's files and symlinks, as absolute paths (directories left out)."""
    paths = set()
    for line in run("dpkg-deb", "--contents", deb).stdout.splitlines():
        mode, name = line.split()[0], line.split(None, 5)[5].split(" -> ")[0]
        if not mode.startswith("d"):
            paths.add("/" + name.lstrip("./"))
    return paths


def promtool_check_metrics(text):
    r = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
    return (r.stdout + r.stderr).strip()


class Root:
    """An overlay of / (upper layer on a tmpfs) with its own /proc, /dev, /run and /tmp."""

    def __init__(self, base):
        self.base = base
        self.rw = os.path.join(base, "rw")
        self.upper = os.path.join(self.rw, "upper")
        self.path = os.path.join(base, "root")

    def __enter__(self):
        os.makedirs(self.rw)
        os.makedirs(self.path)
        run("mount", "-t", "tmpfs", "tmpfs", self.rw)
        os.makedirs(self.upper)
        os.makedirs(os.path.join(self.rw, "work"))
        run("mount", "-t", "overlay", "overlay", "-o",
            f"lowerdir=/,upperdir={self.upper},workdir={self.rw}/work", self.path)
        run("mount", "-t", "proc", "proc", self.at("/proc"))
        run("mount", "--bind", "/dev", self.at("/dev"))
        # A fresh /run: the maintainer scripts see no running systemd (none is asked to reload).
        for tmpfs in ("/run", "/tmp"):
            run("mount", "-t", "tmpfs", "tmpfs", self.at(tmpfs))
        return self

    def at(self, path):
        return os.path.join(self.path, path.lstrip("/"))

    def chroot(self, *argv, user=None, check=True):
        spec = [f"--userspec={user}:{user}"] if user else []
        return run("chroot", *spec, self.path, *argv, check=check)

    def upper_entries(self):
        """Paths in the upper layer that are files, or directories the lower layer lacks."""
        out = []
        for dirpath, dirnames, filenames in os.walk(self.upper):
            rel = os.path.relpath(dirpath, self.upper)
            for d in dirnames:
                p = os.path.normpath(os.path.join(rel, d))
                if not os.path.isdir(os.path.join("/", p)):
                    out.append(p + "/")
            out.extend(os.path.normpath(os.path.join(rel, f)) for f in filenames)
        return sorted(out)

    def __exit__(self, *exc):
        # The private mount namespace drops these with the process too; unmounting here lets
        # the directory be removed.
        for mount in ("/tmp", "/run", "/dev", "/proc", ""):
            subprocess.run(["umount", "-l", self.at(mount) if mount else self.path],
                           capture_output=True)
        subprocess.run(["umount", "-l", self.rw], capture_output=True)


class InstalledExporter:
    """The installed fabric_exporter in the root, as the service user, on a random port."""

    def __init__(self, root, *args):
        self.argv = ["chroot", "--userspec=fabric-ladder:fabric-ladder", root.path,
                     "/usr/bin/fabric_exporter", "--web.listen-address=127.0.0.1:0",
                     "--log.format=json", *args]

    def __enter__(self):
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True)
        lines, self.log = queue.Queue(), []

        def pump():
            for line in self.proc.stderr:
                self.log.append(line)
                lines.put(line)
            lines.put(None)

        threading.Thread(target=pump, daemon=True).start()
        while True:
            line = lines.get(timeout=20)
            if line is None:
                raise AssertionError("the installed exporter exited: " + "".join(self.log))
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if record.get("msg") == "fabric_exporter listening":
                self.url = record["url"]
                return self

    def get(self):
        with urllib.request.urlopen(self.url, timeout=20) as resp:
            return resp.status, resp.read().decode()

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(timeout=20)


class PackageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = os.path.join(BUILD_DIR, "package-test")
        shutil.rmtree(cls.out, ignore_errors=True)
        # No -dbgsym package: compressing the tree's debug info would double the test's time.
        env = dict(os.environ, DEB_BUILD_OPTIONS=(os.environ.get("DEB_BUILD_OPTIONS", "") +
                                                  " noautodbgsym").strip())
        r = subprocess.run([os.path.join(SOURCE_DIR, "scripts", "package"), "--build-dir", BUILD_DIR,
                            "--out", cls.out], capture_output=True, text=True, env=env)
        cls.package_log = r.stdout + r.stderr
        with open(os.path.join(cls.out, "package.log"), "w") as f:
            f.write(cls.package_log)
        if r.returncode != 0:
            raise AssertionError(f"scripts/package exited {r.returncode}:\n{cls.package_log[-6000:]}")
        version = re.search(r"^project\(fabric-ladder VERSION ([\d.]+)",
                            open(os.path.join(SOURCE_DIR, "CMakeLists.txt")).read(), re.M).group(1)
        arch = run("dpkg", "--print-architecture").stdout.strip()
        cls.deb = os.path.join(cls.out, f"fabric-ladder_{version}_{arch}.deb")
        cls.paths = deb_paths(cls.deb)
        cls.conffiles = run("dpkg-deb", "--info", cls.deb, "conffiles").stdout.split()

    def test_lintian_is_clean(self):
        # scripts/package runs lintian with --fail-on error,warning; its tags are in the log.
        tags = re.findall(r"^([EW]): fabric-ladder\S*: (\S+)", self.package_log, re.M)
        self.assertEqual(tags, [])
        self.assertIn("lintian --fail-on error,warning", open(
            os.path.join(SOURCE_DIR, "scripts", "package")).read())

    def test_file_list_is_the_install_manifest(self):
        with tempfile.TemporaryDirectory() as stage:
            env = dict(os.environ, DESTDIR=stage)
            run("cmake", "--install", BUILD_DIR, "--prefix", "/usr", env=env)
            with open(os.path.join(BUILD_DIR, "install_manifest.txt")) as f:
                manifest = set(f.read().split())
            for path in manifest:
                self.assertTrue(os.path.lexists(stage + path), path)
        self.assertIn("/usr/bin/fabric_exporter", manifest)
        self.assertIn("/usr/share/fabric-ladder/dashboards/fabric-ladder.json", manifest)
        expected = set()
        for path in manifest:
            # dh_compress gzips man pages and the larger docs.
            if path.startswith(("/usr/share/man/", "/usr/share/doc/")) and path + ".gz" in self.paths:
                path += ".gz"
            expected.add(path)
        dpkg_own = {"/usr/share/doc/fabric-ladder/copyright",
                    "/usr/share/doc/fabric-ladder/changelog.gz"}
        self.assertEqual(sorted(self.paths - dpkg_own), sorted(expected))
        self.assertTrue(dpkg_own <= self.paths)

    def test_etc_files_are_conffiles(self):
        etc = sorted(p for p in self.paths if p.startswith("/etc/"))
        self.assertEqual(etc, [CONFIG, FLEET])
        self.assertEqual(sorted(self.conffiles), etc)

    def test_every_linked_library_is_a_dependency(self):
        # dpkg-shlibdeps computed Depends; this checks it from the other side: the package
        # owning each library a binary names (DT_NEEDED) is a dependency.
        field = run("dpkg-deb", "--field", self.deb, "Depends").stdout
        depends = {alt.split()[0] for dep in field.split(",") for alt in dep.split("|")}
        for binary in (os.environ["FABRIC_EXPORTER"], os.environ["FABRIC_PROBE"]):
            path = binary
            needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(\S+)\]",
                                run("readelf", "-d", path).stdout)
            resolved = dict(re.findall(r"^\s*(\S+) => (/\S+)", run("ldd", path).stdout, re.M))
            self.assertIn("libc.so.6", needed)
            for soname in needed:
                real = os.path.realpath(resolved[soname])
                owners = set()
                for candidate in {resolved[soname], real, re.sub(r"^/usr", "", real)}:
                    r = run("dpkg-query", "-S", candidate, check=False)
                    if r.returncode == 0:
                        owners |= {o.split(":")[0] for o in r.stdout.split(": ")[0].split(", ")}
                self.assertTrue(owners, f"{soname}: no package owns {real}")
                self.assertTrue(owners & depends, f"{binary} needs {soname} of {owners}, "
                                f"not in Depends: {field}")

    def test_install_run_remove_purge(self):
        with tempfile.TemporaryDirectory(prefix="fabric-package-") as base, Root(base) as root:
            before = set(root.upper_entries())
            shutil.copy(self.deb, root.at("/tmp/fabric-ladder.deb"))
            # The throw-away root starts as this machine: drop a fabric-ladder it may have.
            root.chroot("dpkg", "--purge", "fabric-ladder")
            root.chroot("dpkg", "--install", "/tmp/fabric-ladder.deb")
            self.assertIn("install ok installed", root.chroot(
                "dpkg-query", "-W", "-f=${Status}", "fabric-ladder").stdout)

            # The service user (sysusers), its directories (tmpfiles), the unit not enabled.
            user = root.chroot("getent", "passwd", "fabric-ladder").stdout.strip().split(":")
            self.assertLess(int(user[2]), 1000, user)
            self.assertEqual(user[5:], ["/var/lib/fabric-ladder", "/usr/sbin/nologin"])
            probe = os.stat(root.at("/var/lib/fabric-ladder/probe"))
            self.assertEqual((probe.st_uid, probe.st_mode & 0o777), (int(user[2]), 0o750))
            self.assertTrue(os.path.isfile(root.at("/lib/systemd/system/fabric-exporter.service")))
            self.assertFalse(os.path.lexists(
                root.at("/etc/systemd/system/multi-user.target.wants/fabric-exporter.service")))
            self.assertNotEqual(root.chroot("deb-systemd-helper", "is-enabled",
                                            "fabric-exporter.service", check=False).returncode, 0)
            # Registered (deb-systemd-helper update-state), so that a purge can clean up.
            self.assertTrue(os.path.isfile(root.at(DSH_STATE)), DSH_STATE)
            # Nothing starts it: no start in the maintainer scripts, a restart on upgrade only
            # if it runs, a stop on remove.
            scripts = {name: run("dpkg-deb", "--info", self.deb, name, check=False).stdout
                       for name in ("preinst", "postinst", "prerm", "postrm")}
            invoked = re.findall(r"deb-systemd-invoke (\S+)", "".join(scripts.values()))
            self.assertEqual(sorted(set(invoked)), ["stop", "try-restart"])
            self.assertIn("deb-systemd-invoke stop", scripts["prerm"])
            self.assertNotIn("systemctl start", "".join(scripts.values()))
            unit = open(root.at("/lib/systemd/system/fabric-exporter.service")).read()
            self.assertIn(f"ExecStart=/usr/bin/fabric_exporter --config.file={CONFIG}\n", unit)

            # The operator's probe secret, then the packaged config checks as the service user.
            with open(root.at(SECRET), "w") as f:
                f.write("0123456789abcdef0123456789abcdef\n")
            os.chmod(root.at(SECRET), 0o600)
            os.chown(root.at(SECRET), int(user[2]), int(user[3]))
            r = root.chroot("/usr/bin/fabric_exporter", "--config.file=" + CONFIG, "--config.check",
                            user="fabric-ladder")
            self.assertIn("configuration OK", r.stdout)
            with open(root.at(CONFIG)) as f:
                self.assertIn("\n  nodes_file: fleet.yml\n", f.read())  # FLEET, read above.
            self.assertIn("fabric_exporter 0.", root.chroot("/usr/bin/fabric_exporter", "--version").stdout)
            self.assertIn("Usage: fabric_probe", root.chroot("/usr/bin/fabric_probe", "--help").stdout)

            # The installed binary over the nics fixture tree.
            shutil.copytree(os.path.join(SOURCE_DIR, "tests", "fixtures", "nics"),
                            root.at("/tmp/nics"), symlinks=True)
            with InstalledExporter(root, "--path.procfs=/tmp/nics/proc", "--path.sysfs=/tmp/nics/sys",
                                   "--config.file=/tmp/nics/fabric_exporter.yml") as e:
                status, body = e.get()
            self.assertEqual(status, 200)
            self.assertEqual(promtool_check_metrics(body), "")
            self.assertIn('fabric_scrape_collector_success{collector="netdev"} 1', body)
            self.assertIn('interface="ens1f0np0"', body)

            # Remove: the conffiles alone stay (and the operator's secret, not the package's).
            root.chroot("dpkg", "--remove", "fabric-ladder")
            self.assertIn("deinstall ok config-files", root.chroot(
                "dpkg-query", "-W", "-f=${Status}", "fabric-ladder").stdout)
            left = sorted(p for p in self.paths if os.path.lexists(root.at(p)))
            self.assertEqual(left, [CONFIG, FLEET])

            # Purge: nothing of the package may stay. The secret is the operator's to delete.
            os.unlink(root.at(SECRET))
            root.chroot("dpkg", "--purge", "fabric-ladder")
            self.assertNotIn("fabric-ladder", root.chroot("dpkg-query", "-W", check=False).stdout.split())
            new = [p for p in root.upper_entries() if p not in before]
            self.assertEqual([p for p in new if not ALLOWED_AFTER_PURGE.match(p)], [])
            self.assertFalse(os.path.lexists(root.at(DSH_STATE)))
            self.assertFalse(os.path.lexists(root.at("/etc/fabric-ladder")))
            self.assertFalse(os.path.lexists(root.at("/var/lib/fabric-ladder")))


def main():
    if os.geteuid() != 0:
        print("SKIP: the package test installs into a throw-away root: needs root")
        return 77
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        print("SKIP: not installed: " + ", ".join(missing) + " (scripts/setup-deps --test)")
        return 77
    if not os.path.exists(os.path.join(BUILD_DIR, "CMakeCache.txt")):
        print(f"FAIL: no CMake build tree at {BUILD_DIR}")
        return 1
    if os.environ.get(NAMESPACE_MARK) != "1":
        # Every mount below lives in a private mount namespace: gone when this process is.
        env = dict(os.environ, **{NAMESPACE_MARK: "1"})
        return subprocess.run(["unshare", "--mount", "--propagation", "private", sys.executable,
                               os.path.abspath(__file__)], env=env).returncode
    with tempfile.TemporaryDirectory() as probe:
        r = subprocess.run(["mount", "-t", "tmpfs", "tmpfs", probe], capture_output=True, text=True)
        if r.returncode != 0:
            print("SKIP: cannot mount here (" + r.stderr.strip() + ")")
            return 77
        subprocess.run(["umount", probe])
    suite = unittest.TestLoader().loadTestsFromTestCase(PackageTest)
    return 0 if unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
