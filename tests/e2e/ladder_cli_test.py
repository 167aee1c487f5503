#!/usr/bin/env python3
"""`fabric_probe ladder` on loopback against `fabric_probe serve`: every probe once, the ladder
as JSON and as a table with bars, progress only on a terminal, and the exit statuses."""
import json
import os
import pty
import signal
import socket
import subprocess
import tempfile
import time
import unittest

from fabric_testlib import probe_process
from fabric_testlib.listening import free_port
from fabric_testlib.probe_process import PROBE, write_secret

ARTIFACTS = os.environ.get("FABRIC_ARTIFACT_DIR", os.path.join(tempfile.gettempdir(), "fabric-test-artifacts"))
LAYERS = ["line", "pcie", "rdma", "tcp_multi", "tcp_single", "storage_read", "storage_write", "transfers"]
SHORT = ["--duration", "500ms", "--warmup", "200ms"]
HAS_RDMA = os.path.isdir("/sys/class/infiniband") and bool(os.listdir("/sys/class/infiniband"))


class Serve(probe_process.Responder):
    """`fabric_probe serve` on loopback (the namespace wrapper is not needed here)."""

    def __init__(self, *args):
        super().__init__("unused", *args)
        self.cmd = [PROBE, "serve", *args]


class LadderCliTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(ARTIFACTS, exist_ok=True)
        cls.tmp = tempfile.TemporaryDirectory(prefix="ladder-cli-", dir=ARTIFACTS)
        cls.secret = write_secret(cls.tmp.name, "secret", "fabric-ladder-cli-test-secret")
        cls.storage = os.path.join(cls.tmp.name, "storage")  # on disk: O_DIRECT
        os.mkdir(cls.storage)
        # A port the kernel found free; another process may bind it before the responder does
        # (it then exits at start-up), so a few tries.
        for attempt in range(5):
            cls.port = free_port()
            cls.peer = f"127.0.0.1:{cls.port}"
            cls.serve = Serve("--listen", cls.peer, "--allow", "127.0.0.0/8", "--secret-file", cls.secret)
            try:
                cls.serve.__enter__()
                break
            except RuntimeError:
                if attempt == 4:
                    raise

    @classmethod
    def tearDownClass(cls):
        cls.serve.__exit__(None, None, None)
        cls.tmp.cleanup()

    def ladder(self, *args, timeout=120):
        return subprocess.run([PROBE, "ladder", "--peer", self.peer, "--secret-file", self.secret, *SHORT, *args],
                              capture_output=True, text=True, timeout=timeout)

    def test_json_ladder_with_storage(self):
        p = self.ladder("--storage", self.storage, "--storage-size", "16M", "--storage-duration", "500ms",
                        "--storage-reserve", "0", "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, "", "no progress or log output when stderr is not a terminal")
        doc = json.loads(p.stdout)
        self.assertTrue(doc["loopback"])
        self.assertEqual(doc["interface"], "lo")
        self.assertIsNone(doc["line_rate_bytes_per_second"])
        layers = {l["layer"]: l for l in doc["layers"]}
        self.assertEqual([l["layer"] for l in doc["layers"]], LAYERS)
        for rung in ("tcp_multi", "tcp_single", "storage_read", "storage_write"):
            self.assertGreater(layers[rung]["bytes_per_second"] or 0, 1e6, rung)
            self.assertTrue(layers[rung]["self_checked"], rung)
        # Each TCP direction names the mode and block size it ran with (the calibration's
        # choice), so the figure reads as that mode's, not as the stream's ceiling.
        for rung in ("tcp_multi", "tcp_single"):
            for direction in ("send", "receive"):
                self.assertRegex(layers[rung]["detail"], direction + r" [0-9.]+ [GMk]bit/s "
                                 r"\((sendfile|copy), (128 KiB|256 KiB|1 MiB) blocks\)", rung)
        if not HAS_RDMA:
            self.assertIsNone(layers["rdma"]["bytes_per_second"])
            self.assertEqual(layers["rdma"]["status"], "no RDMA device on this node")
        # The binding layer is the lowest measured ceiling (1-stream TCP and transfers never bind).
        ceilings = {k: v["bytes_per_second"] for k, v in layers.items() if v["ceiling"] and v["bytes_per_second"]}
        self.assertEqual(doc["binding"], min(ceilings, key=ceilings.get))
        self.assertEqual([l["layer"] for l in doc["layers"] if l["binding"]], [doc["binding"]])
        # Bars are scaled to the best layer when there is no line rate.
        measured = [l["bytes_per_second"] for l in doc["layers"] if l["bytes_per_second"]]
        self.assertAlmostEqual(doc["scale_bytes_per_second"], max(measured), delta=1)
        self.assertIn("Loopback has no line rate", doc["scale_note"])
        self.assertEqual(os.listdir(self.storage), [], "the storage probe left files behind")

    def test_table_with_bars(self):
        p = self.ladder("--no-single-stream")
        self.assertEqual(p.returncode, 0, p.stderr)
        out = p.stdout
        self.assertIn("LOOPBACK", out)
        self.assertIn("█", out)
        self.assertRegex(out, r"(?m)^▶ N-stream TCP .*◀ binding$")
        self.assertRegex(out, r"(?m)^  1-stream TCP +- +- +not run \(--no-single-stream\)$")
        self.assertRegex(out, r"(?m)^  storage read +- +- +not run \(no --storage\)$")
        self.assertRegex(out, r"(?m)^Binding layer: N-stream TCP at [0-9.]+ [GM]bit/s\.$")
        self.assertRegex(out, r"(?m)^(Self-checks passed on every measured layer\.|Self-checks raised: .+)$")

    def test_progress_only_on_a_terminal(self):
        master, slave = pty.openpty()
        try:
            p = subprocess.Popen([PROBE, "ladder", "--peer", self.peer, "--secret-file", self.secret, *SHORT,
                                  "--no-single-stream", "--no-rdma", "--json"],
                                 stdout=subprocess.PIPE, stderr=slave, text=True)
            os.close(slave)
            stdout, _ = p.communicate(timeout=120)
            progress = b""
            while True:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                progress += chunk
        finally:
            os.close(master)
        self.assertEqual(p.returncode, 0)
        self.assertEqual(json.loads(stdout)["binding"], "tcp_multi")
        text = progress.decode()
        self.assertIn("[1/1] N-stream TCP", text)
        self.assertIn("█", text)
        self.assertRegex(text, r"\[1/1\] N-stream TCP +[0-9.]+ [GM]bit/s")

    def test_interrupt_stops_storage_and_removes_its_files(self):
        storage = os.path.join(self.tmp.name, "interrupted")
        os.mkdir(storage)
        p = subprocess.Popen([PROBE, "ladder", "--peer", self.peer, "--secret-file", self.secret, *SHORT,
                              "--no-single-stream", "--no-rdma", "--storage", storage, "--storage-size", "64M",
                              "--storage-duration", "60s", "--storage-reserve", "0"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # Interrupt once the storage run has created its file.
        deadline = time.monotonic() + 60
        while not os.listdir(storage) and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.05)
        self.assertTrue(os.listdir(storage), "the storage run never started")
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 130, err)
        self.assertIn("interrupted", err)
        self.assertEqual(os.listdir(storage), [])
        self.assertRegex(out, r"(?m)^▶ N-stream TCP .*◀ binding$")  # what ran is still printed
        # An interrupted run records nothing: the row says so instead of showing a number.
        self.assertRegex(out, r"storage write +- +- +interrupted before it finished")

    def test_refused_peer_prints_the_ladder_and_exits_1(self):
        # A port this test holds bound and not listening: the kernel refuses every connection.
        with socket.socket() as held:
            held.bind(("127.0.0.1", 0))
            p = subprocess.run([PROBE, "ladder", "--peer", f"127.0.0.1:{held.getsockname()[1]}",
                                "--secret-file", self.secret, *SHORT], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"N-stream TCP +- +- +connection refused \(is the responder running\?\)")

    def test_replay_of_a_recording(self):
        # No probe runs: the nics fixture's recorded node-c path, its NIC from the fixture sysfs
        # (and an empty procfs: no socket-buffer sysctls of this machine).
        fixtures = os.path.join(os.path.dirname(__file__), "..", "fixtures", "nics")
        p = subprocess.run([PROBE, "ladder", "--replay", os.path.join(fixtures, "probes.rec.yml"),
                            "--peer", "node-c", "--path.sysfs=" + os.path.join(fixtures, "sys"),
                            "--path.procfs=" + self.tmp.name,
                            "--interface", "ens1f0np0", "--json"], capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(doc["line_rate_bytes_per_second"], 12.5e9)
        layers = {l["layer"]: l for l in doc["layers"]}
        self.assertEqual(layers["tcp_multi"]["bytes_per_second"], 7625000000.0)
        self.assertEqual(doc["shape_ids"], ["jumbo_frames_failing"])
        self.assertEqual(len(doc["shapes"]), 1)
        missing = subprocess.run([PROBE, "ladder", "--replay", os.path.join(self.tmp.name, "none.json"),
                                  "--peer", "node-c"], capture_output=True, text=True, timeout=30)
        self.assertEqual(missing.returncode, 2)
        self.assertIn("no such file", missing.stderr)

    def test_usage(self):
        h = subprocess.run([PROBE, "ladder", "--help"], capture_output=True, text=True)
        self.assertEqual(h.returncode, 0)
        for words in ("--peer HOST[:PORT]", "--storage", "--json", "--[no-]rdma", "--replay FILE", "Exit status: 0",
                      "130"):
            self.assertIn(words, h.stdout)
        p = subprocess.run([PROBE, "ladder", "--secret-file", self.secret], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--peer is required", p.stderr)
        top = subprocess.run([PROBE, "--help"], capture_output=True, text=True)
        self.assertIn("ladder", top.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
