#!/usr/bin/env python3
"""The exporter's scheduled storage probe (probes.storage) on a small ext4 on
a loop device (root):

- another writer fills the filesystem while the probe lays out its file: the
  probe fails with reason="no_space", the log says ENOSPC, no probe file is
  left, the exporter keeps serving;
- SIGTERM while the probe reads: exit 0 within a few seconds, no probe file,
  no state-file temporary, no child process.

Everything created is named /tmp/fx-* and removed at the end; exit 77 (skip)
when not root or a tool is missing."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from fabric_testlib.exporter_process import Exporter, promtool_check_metrics, samples

MiB = 1 << 20
PROBE_FILE = "fabric_probe_storage.0"  # active-probes/storage/storage_probe.cc

CONFIG = """
fleet:
  self: node-a
  nodes:
    - {{name: node-a, address: 127.0.0.1}}
probes:
  state_file: {state}
  max_splay: 0s
  path: {{enabled: false}}
  storage: {{directory: {directory}, interval: 1h, duration: {duration}, warmup: 0s,
            size: {size}, reserve: 0}}
collectors:
  flows: {{enabled: false}}
  pcie: {{enabled: false}}
"""


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()


def listing(directory):
    return sorted(n for n in os.listdir(directory) if n != "lost+found")


class LoopFs:
    """An ext4 of `size_mb` on a loop device, mounted under /tmp."""

    def __init__(self, size_mb):
        self.tmp = tempfile.mkdtemp(prefix="fx-storage-")
        self.image = os.path.join(self.tmp, "fs.img")
        self.mnt = os.path.join(self.tmp, "mnt")
        self.dev = None
        self.mounted = False
        with open(self.image, "wb") as f:
            f.truncate(size_mb * MiB)
        try:
            self.dev = run("losetup", "-f", "--show", self.image)
            run("mkfs.ext4", "-q", "-F", "-m", "0", self.dev)
            os.mkdir(self.mnt)
            run("mount", self.dev, self.mnt)
            self.mounted = True
        except BaseException:
            self.close()
            raise

    def free(self):
        st = os.statvfs(self.mnt)
        return st.f_bavail * st.f_frsize

    def close(self):
        if self.mounted:
            subprocess.run(["umount", self.mnt], check=False)
        if self.dev:
            subprocess.run(["losetup", "-d", self.dev], check=False)
        shutil.rmtree(self.tmp, ignore_errors=True)


def children(pid):
    kids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        kids.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return kids


class StorageFaultsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            print("SKIP: loop devices and mount need root")
            raise SystemExit(77)
        for tool in ("losetup", "mkfs.ext4", "mount", "umount"):
            if shutil.which(tool) is None:
                print(f"SKIP: {tool} is not installed")
                raise SystemExit(77)

    def setUp(self):
        self.fs = LoopFs(160)
        self.addCleanup(self.fs.close)
        self.state_dir = tempfile.mkdtemp(prefix="fx-state-")
        self.addCleanup(shutil.rmtree, self.state_dir, True)

    def exporter(self, size, duration):
        config = os.path.join(self.state_dir, "fabric_exporter.yml")
        with open(config, "w") as f:
            f.write(CONFIG.format(state=os.path.join(self.state_dir, "state.yml"),
                                  directory=self.fs.mnt, size=size, duration=duration))
        return Exporter("--config.file=" + config)

    def wait_for_probe_file(self, timeout=15):
        deadline = time.monotonic() + timeout
        while PROBE_FILE not in os.listdir(self.fs.mnt):
            self.assertLess(time.monotonic(), deadline, "the storage probe did not start")
            time.sleep(0.0005)

    def test_filesystem_filled_mid_probe(self):
        size = 96 * MiB
        self.assertGreater(self.fs.free(), size + 8 * MiB)
        filler = os.path.join(self.fs.mnt, "filler")
        with self.exporter(size, "1s") as e:
            # As soon as the probe has created its file (and passed its free-
            # space check), another writer takes every free block.
            self.wait_for_probe_file()
            fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                # Most in one go (instant with extents), then the rest until
                # ext4 has no block left, metadata included.
                offset = max(0, self.fs.free() - 4 * MiB)
                os.posix_fallocate(fd, 0, offset)
                chunk = 256 << 10
                while chunk >= 4096:
                    try:
                        os.posix_fallocate(fd, offset, chunk)
                        offset += chunk
                    except OSError:
                        chunk //= 2
            finally:
                os.close(fd)
            self.assertLess(self.fs.free(), MiB)
            series = ('fabric_probe_failure_info{direction="",probe="storage_read",'
                      f'reason="no_space",target="{self.fs.mnt}"}} 1')
            deadline = time.monotonic() + 30
            while True:
                status, _, body = e.get("/metrics")
                self.assertEqual(status, 200)
                if series in body:
                    break
                self.assertNotIn(f'fabric_probe_success{{direction="",probe="storage_read",target='
                                 f'"{self.fs.mnt}"}} 1', body, "the filler lost the race")
                self.assertLess(time.monotonic(), deadline, "no no_space failure reported: " +
                                "".join(e.log_lines) + "\n".join(
                                    l for l in body.splitlines() if "fabric_probe" in l))
                time.sleep(0.1)
            # The write rung then refuses up front, for the same reason.
            deadline = time.monotonic() + 10
            write = series.replace("storage_read", "storage_write")
            while write not in body:
                self.assertLess(time.monotonic(), deadline, "storage_write: " + body[-2000:])
                time.sleep(0.1)
                body = e.metrics()
            self.assertEqual(promtool_check_metrics(body), "")
            log = [json.loads(line) for line in e.log_lines if '"storage probe failed"' in line]
            self.assertTrue(any("ENOSPC" in r["err"] or "No space left" in r["err"]
                                for r in log), log)
            self.assertEqual(listing(self.fs.mnt), ["filler"], "no probe file left")
            self.assertIsNone(e.proc.poll())
            os.unlink(filler)

    def test_sigterm_during_storage_probe(self):
        with self.exporter(64 * MiB, "10s") as e:
            self.wait_for_probe_file()
            time.sleep(1)  # Into the read window.
            pid = e.proc.pid
            self.assertEqual(children(pid), [])
            start = time.monotonic()
            e.proc.send_signal(signal.SIGTERM)
            rc = e.proc.wait(timeout=30)
            took = time.monotonic() - start
            print(f"    exit {rc} {took:.2f} s after SIGTERM", file=sys.stderr)
            self.assertEqual(rc, 0)
            # Bound: the probe stops within its I/O slice; the web server's
            # stop takes up to ~2 s on its own.
            self.assertLess(took, 4)
            self.assertEqual(listing(self.fs.mnt), [], "no probe file left")
            files = sorted(os.listdir(self.state_dir))
            self.assertEqual([n for n in files if n not in ("fabric_exporter.yml", "state.yml")],
                             [], "no state-file temporaries")
            if "state.yml" in files:  # The cut-short run is no result and no failure.
                with open(os.path.join(self.state_dir, "state.yml")) as f:
                    state = f.read()
                self.assertNotIn("interrupted", state)
                self.assertNotIn("success: false", state)
            self.assertEqual(children(pid), [])
            self.assertIn('"storage probe interrupted"', "".join(e.log_lines))


if __name__ == "__main__":
    unittest.main(verbosity=2)
