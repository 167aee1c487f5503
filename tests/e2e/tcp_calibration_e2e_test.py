#!/usr/bin/env python3
"""A running fabric_exporter probing its own responder over loopback calibrates each TCP rung
and direction (one short run of every candidate send mode and block size), runs the fastest one
and says which on fabric_probe_info{mode,block_bytes,directions}; the calibration is kept in the state
file, so a restart does not calibrate again.

Deterministic: it asserts that the mode and block size reported are among the candidates and
that they are the ones that measured fastest in the calibration the state file records, never
an absolute throughput."""
import os
import re
import tempfile
import time
import unittest

import yaml

from fabric_testlib.exporter_process import Exporter
from fabric_testlib.listening import free_port

CANDIDATES = {(mode, block) for mode in ("sendfile", "copy") for block in (131072, 262144, 1048576)}
KEYS = {(probe, direction) for probe in ("tcp_multi", "tcp_single") for direction in ("send", "receive")}
# Round: 2 rungs x 2 directions x (500 ms + 200 ms + 6 x 300 ms) + 2 s = 12 s.
CONFIG = """
fleet:
  self: this-host
  nodes:
    - {{name: this-host, address: 127.0.0.1, interface: lo}}
probes:
  loopback: true
  secret_file: {dir}/probe.secret
  state_file: {dir}/state.yml
  max_splay: 0s
  path: {{enabled: false}}
  tcp: {{round: 12s, duration: 500ms, warmup: 200ms, streams: 2, single_stream: true,
         port: {port}, calibration: {{candidate: 300ms}}}}
"""
DEADLINE_SECONDS = 90
INFO = re.compile(r'^fabric_probe_info\{([^}]*)\} 1$', re.M)


def info_series(body):
    """{(probe, direction): labels} of the loopback TCP rungs' fabric_probe_info."""
    out = {}
    for m in INFO.finditer(body):
        labels = dict(re.findall(r'([a-z_]+)="([^"]*)"', m.group(1)))
        if labels.get("target") == "loopback" and labels.get("probe") in ("tcp_multi", "tcp_single"):
            out[(labels["probe"], labels["direction"])] = labels
    return out


def calibrations(state_path):
    if not os.path.exists(state_path):
        return {}
    with open(state_path) as f:
        state = yaml.safe_load(f)
    return {(c["probe"], c["direction"]): c for c in state.get("tcp_calibration") or []
            if c["target"] == "loopback"}


def last_runs(body):
    return {(m.group(1), m.group(2)): float(m.group(3)) for m in re.finditer(
        r'^fabric_probe_last_run_timestamp_seconds\{direction="([a-z]+)",probe="(tcp_[a-z]+)",'
        r'target="loopback"\} (\S+)$', body, re.M)}


class TcpCalibrationTest(unittest.TestCase):
    def wait_for(self, exporter, done, what):
        start = time.monotonic()
        while time.monotonic() - start < DEADLINE_SECONDS:
            body = exporter.metrics()
            if done(body):
                return body
            time.sleep(1)
        self.fail(f"no {what} within {DEADLINE_SECONDS}s\n" + "".join(exporter.log_lines[-20:]))

    def test_calibrates_reports_the_fastest_candidate_and_keeps_it_across_a_restart(self):
        with tempfile.TemporaryDirectory(prefix="tcp-calibration-") as d:
            with open(os.path.join(d, "probe.secret"), "w") as f:
                f.write("calibration-e2e-secret-0123456789abcdef\n")
            os.chmod(os.path.join(d, "probe.secret"), 0o600)
            config = os.path.join(d, "fabric_exporter.yml")
            with open(config, "w") as f:
                f.write(CONFIG.format(dir=d, port=free_port()))
            state = os.path.join(d, "state.yml")

            with Exporter("--config.file=" + config) as exporter:
                # The state file is saved after the round's last run: wait for both.
                body = self.wait_for(exporter, lambda b: set(info_series(b)) >= KEYS and
                                     set(calibrations(state)) >= KEYS, "TCP rung info and calibrations")
                series = info_series(body)
            found = calibrations(state)
            self.assertEqual(set(found), KEYS)
            for key in KEYS:
                c, labels = found[key], series[key]
                measured = [(m["mode"], m["block"], m["bytes_per_second"]) for m in c["measured"]]
                self.assertEqual({(mode, block) for mode, block, _ in measured}, CANDIDATES, key)
                self.assertTrue(all(rate > 0 for _, _, rate in measured), key)
                # The best measured (the table's earlier one on a tie) is the one chosen...
                best = max(measured, key=lambda m: m[2])
                self.assertEqual((c["mode"], c["block"]), best[:2], key)
                # ... and the one the rung ran with and reports.
                self.assertEqual((labels["mode"], int(labels["block_bytes"])), (c["mode"], c["block"]), key)
                self.assertIn((labels["mode"], int(labels["block_bytes"])), CANDIDATES)
                # Calibrated, each direction ran alone in a session of its own (the pattern
                # the comparison runs repeat).
                self.assertEqual(labels["directions"], "one_at_a_time", key)

            # A restart reads the calibration back: the next runs use it, none calibrates again.
            with Exporter("--config.file=" + config) as exporter:
                before = last_runs(exporter.metrics())
                self.wait_for(exporter, lambda b: all(last_runs(b).get(k, 0) > before.get(k, 0)
                                                      for k in [(dir_, p) for p, dir_ in KEYS]),
                              "new TCP runs after the restart")
                log = "".join(exporter.log_lines)
            self.assertNotIn('"msg":"tcp calibration"', log)
            self.assertEqual({k: c["timestamp"] for k, c in calibrations(state).items()},
                             {k: c["timestamp"] for k, c in found.items()})


if __name__ == "__main__":
    unittest.main(verbosity=2)
