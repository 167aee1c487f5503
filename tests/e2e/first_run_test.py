#!/usr/bin/env python3
"""A ladder on first run: the config scripts/run generates without --config.file
(scripts/first-run-config from deploy/examples/first-run.yml) makes this machine probe its own
responder over loopback; within about a minute the TCP and storage rungs have results, and the
page at "/" draws them as a loopback ladder."""
import os
import re
import stat
import subprocess
import tempfile
import time
import unittest
import urllib.request

from fabric_testlib.exporter_process import SOURCE_DIR, Exporter
from fabric_testlib.listening import free_port

ARTIFACTS = os.environ.get("FABRIC_ARTIFACT_DIR", os.path.join(tempfile.gettempdir(), "fabric-test-artifacts"))
DEADLINE_SECONDS = 60
RUNGS = ["tcp_multi", "tcp_single", "storage_read", "storage_write"]


class FirstRunTest(unittest.TestCase):
    def test_loopback_ladder_within_a_minute(self):
        # The storage rung needs O_DIRECT: a directory on disk (the build tree), not a tmpfs.
        os.makedirs(ARTIFACTS, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="first-run-", dir=ARTIFACTS) as state:
            port = free_port()
            config = subprocess.run(
                [os.path.join(SOURCE_DIR, "scripts", "first-run-config"), "--state-dir", state,
                 "--probe-port", str(port)], check=True, capture_output=True, text=True).stdout.strip()
            self.assertEqual(config, os.path.join(state, "fabric_exporter.yml"))
            secret = os.stat(os.path.join(state, "probe.secret"))
            self.assertEqual(stat.S_IMODE(secret.st_mode), 0o600)
            with open(config) as f:
                text = f.read()
            for placeholder in ("@STATE_DIR@", "@PROBE_PORT@"):
                self.assertNotIn(placeholder, text)
            self.assertIn(f"port: {port}", text)

            start = time.monotonic()
            with Exporter("--config.file=" + config) as exporter:
                seen = {}
                while time.monotonic() - start < DEADLINE_SECONDS:
                    body = exporter.metrics()
                    seen = {m.group(1): float(m.group(2)) for m in re.finditer(
                        r'^fabric_probe_throughput_bytes_per_second\{[^}]*probe="([a-z_]+)"[^}]*\} (\S+)$',
                        body, re.M)}
                    if all(r in seen for r in RUNGS):
                        break
                    time.sleep(2)
                elapsed = time.monotonic() - start
                self.assertTrue(all(seen.get(r, 0) > 0 for r in RUNGS),
                                f"after {elapsed:.0f}s only {sorted(seen)}\n" + "\n".join(exporter.log_lines[-20:]))
                print(f"first run: every TCP and storage rung measured {elapsed:.0f}s after start")
                # Loopback, in the metrics: the network rungs' target says so.
                self.assertRegex(body, r'fabric_probe_throughput_bytes_per_second\{direction="send",'
                                       r'probe="tcp_multi",target="loopback"\}')
                with urllib.request.urlopen(exporter.base_url + "/", timeout=30) as r:
                    page = r.read().decode()
            self.assertIn('data-loopback="true"', page)
            self.assertIn("LOOPBACK", page)
            self.assertRegex(page, r'data-layer="tcp_multi" data-binding="(true|false)" data-measured="true"')
            self.assertIn("Loopback has no line rate: bars are scaled to the best measured layer", page)
            # The storage probe removed its files.
            self.assertEqual(os.listdir(os.path.join(state, "storage")), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
