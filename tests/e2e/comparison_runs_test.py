#!/usr/bin/env python3
"""The running exporter produces the comparison runs (COMPARISON_RUNS) as records of their own:
a loopback node with the whole hour as its probe budget runs tcp_multi_copy after its first
round's rungs and rotates the storage comparisons (buffered, shared vs separate files, depth 1)
over its storage interval; every record carries its planned period, and the budget and the
time spent are exported. The stream sweep runs when a tcp_multi result asks for it.

Like for like, with the default calibration on: each TCP comparison ran in the rung's own
sessions (each direction alone, the block size and mode calibrated for it), tcp_multi_copy
compares copy with sendfile (never copy with copy) and one of its two runs is the rung's own of
the same meeting; the buffered read carries the direct read of its own slot. Asserted on what
ran (labels, the rung's own figures, run durations), never on a rate."""
import os
import random
import re
import tempfile
import time
import unittest

from fabric_testlib.exporter_process import Exporter
from fabric_testlib.listening import free_port

ARTIFACTS = os.environ.get("FABRIC_ARTIFACT_DIR", os.path.join(tempfile.gettempdir(), "fabric-test-artifacts"))
DEADLINE_SECONDS = 120
ROUND = 20
STORAGE_INTERVAL = 8
COMPARISONS = ["tcp_multi_copy", "storage_read_buffered", "storage_read_shared_file",
               "storage_read_separate_files", "storage_read_depth1", "storage_write_depth1"]
SAMPLE = re.compile(r'^(fabric_probe_[a-z_0-9]+)\{([^}]*)\} (\S+)$', re.M)


def samples(body):
    out = {}
    for m in SAMPLE.finditer(body):
        labels = dict(re.findall(r'([a-z_]+)="([^"]*)"', m.group(2)))
        key = (m.group(1), labels.get("probe"), labels.get("direction"), labels.get("verdict"))
        out[key] = float(m.group(3))
    return out


INFO = re.compile(r'^fabric_probe_info\{([^}]*)\} 1$', re.M)
LAST_RUN = re.compile(r'^fabric_probe_last_run_timestamp_seconds\{([^}]*)\} (\S+)$', re.M)


def labelled(pattern, body):
    """{(probe, direction): (labels, value)} of one series family."""
    out = {}
    for m in pattern.finditer(body):
        labels = dict(re.findall(r'([a-z_]+)="([^"]*)"', m.group(1)))
        value = float(m.group(2)) if m.lastindex and m.lastindex > 1 else 1
        out[(labels.get("probe"), labels.get("direction"))] = (labels, value)
    return out


def same_meeting(body):
    """The scrape's tcp_multi and tcp_multi_copy records of one direction when the copy run
    is the latest thing that ran (no later rung yet): (infos, samples) or None."""
    runs = labelled(LAST_RUN, body)
    for d in ("send", "receive"):
        rung, copy = runs.get(("tcp_multi", d)), runs.get(("tcp_multi_copy", d))
        if not rung or not copy or copy[1] == 0 or copy[1] < rung[1]:
            return None
    return labelled(INFO, body), samples(body)


def config(state, port):
    return f"""
fleet:
  self: this-host
  nodes:
    - {{name: this-host, address: 127.0.0.1, interface: lo}}
probes:
  loopback: true
  state_file: {state}/state.yml
  secret_file: {state}/probe.secret
  max_splay: 0s
  budget: 1
  path: {{enabled: false}}
  tcp: {{round: {ROUND}s, duration: 1s, warmup: 300ms, streams: 4, single_stream: false,
         single_stream_every: 1, port: {port}}}
  responder: {{max_streams: 32}}
  storage:
    directory: {state}/storage
    interval: {STORAGE_INTERVAL}s
    duration: 500ms
    warmup: 100ms
    size: 67108864
    reserve: 268435456
"""


class ComparisonRunsTest(unittest.TestCase):
    def test_loopback_node_produces_the_comparison_runs(self):
        os.makedirs(ARTIFACTS, exist_ok=True)  # O_DIRECT needs a disk, not a tmpfs.
        with tempfile.TemporaryDirectory(prefix="comparisons-", dir=ARTIFACTS) as state:
            os.makedirs(os.path.join(state, "storage"))
            with open(os.path.join(state, "probe.secret"), "w") as f:
                f.write("%064x\n" % random.getrandbits(256))
            os.chmod(os.path.join(state, "probe.secret"), 0o600)
            path = os.path.join(state, "fabric_exporter.yml")
            with open(path, "w") as f:
                f.write(config(state, free_port()))
            start = time.monotonic()
            with Exporter("--config.file=" + path) as exporter:
                got = {}
                while time.monotonic() - start < DEADLINE_SECONDS:
                    got = samples(exporter.metrics())
                    if all(("fabric_probe_throughput_bytes_per_second", p, d, None) in got
                           for p in COMPARISONS for d in (["send", "receive"] if p.startswith("tcp") else [""])):
                        break
                    time.sleep(2)
                elapsed = time.monotonic() - start
                tput = {(p, d): v for (n, p, d, _), v in got.items() if n == "fabric_probe_throughput_bytes_per_second"}
                for probe in COMPARISONS:
                    for d in (["send", "receive"] if probe.startswith("tcp") else [""]):
                        self.assertGreater(tput.get((probe, d), 0), 0,
                                           f"{probe}/{d} after {elapsed:.0f}s: {sorted(tput)}\n"
                                           + "\n".join(exporter.log_lines[-30:]))
                print(f"comparison runs: all produced {elapsed:.0f}s after start; "
                      + ", ".join(f"{p}{'/' + d if d else ''}={v / 1e9:.2f} GB/s" for (p, d), v in sorted(tput.items())))
                # Each record's planned period: the rungs every round (loopback), the pair
                # comparisons every second round (copy and sweep take turns), the storage rungs
                # every interval, their comparisons every third (three slots).
                period = {(p, d): v for (n, p, d, _), v in got.items() if n == "fabric_probe_period_seconds"}
                self.assertEqual(period[("tcp_multi", "send")], ROUND)
                self.assertEqual(period[("tcp_multi_copy", "receive")], 2 * ROUND)
                self.assertEqual(period[("tcp_multi_sweep", "send")], 2 * ROUND)
                self.assertEqual(period[("storage_read", "")], STORAGE_INTERVAL)
                self.assertEqual(period[("storage_read_depth1", "")], 3 * STORAGE_INTERVAL)
                # Shared file vs separate files at the same parallelism.
                streams = {p: v for (n, p, d, _), v in got.items() if n == "fabric_probe_streams"}
                self.assertEqual(streams["storage_read_shared_file"], streams["storage_read_separate_files"])
                self.assertGreater(streams["storage_read_shared_file"], 1)
                self.assertGreater(got[("fabric_probe_latency_p50_seconds", "storage_write_depth1", "", None)], 0)
                body = exporter.metrics()
                self.assertRegex(body, r'(?m)^fabric_probe_budget_ratio 1$')
                busy = float(re.search(r'(?m)^fabric_probe_busy_ratio (\S+)$', body).group(1))
                self.assertGreater(busy, 0)
                self.assertLess(busy, 1)
                # The sweep follows a tcp_multi result flagged stream_limited or cpu_bound
                # (loopback TCP is often CPU-bound, not always): then, within two rounds.
                flagged = [d for (n, p, d, v), x in got.items() if n == "fabric_probe_verdict"
                           and p == "tcp_multi" and v in ("cpu_bound", "stream_limited") and x == 1]
                if flagged:
                    sweep = {}
                    flagged_at = time.monotonic()
                    while time.monotonic() - flagged_at < 2 * ROUND + 10:
                        sweep = {k: v for k, v in samples(exporter.metrics()).items() if k[1] == "tcp_multi_sweep"}
                        if ("fabric_probe_throughput_bytes_per_second", "tcp_multi_sweep", "send", None) in sweep:
                            break
                        time.sleep(2)
                    self.assertGreater(sweep.get(("fabric_probe_throughput_bytes_per_second", "tcp_multi_sweep", "send", None), 0), 0,
                                       f"{sweep}\n" + "\n".join(exporter.log_lines[-30:]))
                    # max_streams 32, each direction alone as the rung runs: 8, 16 and 32 streams.
                    self.assertIn(sweep[("fabric_probe_streams", "tcp_multi_sweep", "send", None)], (8, 16, 32))
                    info = labelled(INFO, exporter.metrics())
                    for d in ("send", "receive"):
                        self.assertEqual(
                            {k: info[("tcp_multi_sweep", d)][0][k] for k in ("mode", "block_bytes", "directions")},
                            {k: info[("tcp_multi", d)][0][k] for k in ("mode", "block_bytes", "directions")})
                    self.assertGreater(sweep[("fabric_probe_per_stream_ceiling_bytes_per_second", "tcp_multi_sweep", "send", None)], 0)
                    print(f"sweep after tcp_multi flagged {flagged}: "
                          + ", ".join(f"{k[0][13:]}/{k[2]}={v:g}" for k, v in sorted(sweep.items()) if k[3] is None))
                else:
                    print("tcp_multi not flagged: no sweep asked for")
                self.assert_like_for_like(exporter)
                # SIGTERM cancels a storage run in flight; it removes its files on the way out.
                self.assertEqual(exporter.stop(), 0)
            # The storage probe removed its files.
            self.assertEqual(os.listdir(os.path.join(state, "storage")), [])

    def assert_like_for_like(self, exporter):
        # A scrape where the copy comparison is the latest run of the pair: its rung's records
        # are of the same meeting (the next rung would be newer).
        start = time.monotonic()
        found = None
        while found is None and time.monotonic() - start < 4 * ROUND:
            found = same_meeting(exporter.metrics())
            if found is None:
                time.sleep(1)
        self.assertIsNotNone(found, "no scrape with a copy run after its rung\n"
                             + "\n".join(exporter.log_lines[-30:]))
        info, got = found
        for d in ("send", "receive"):
            rung, copy = info[("tcp_multi", d)][0], info[("tcp_multi_copy", d)][0]
            # The rung ran each direction alone (calibration on, the default), and so did the
            # comparison, with the rung's calibrated block size; it compared copy with sendfile.
            self.assertEqual(rung["directions"], "one_at_a_time")
            self.assertEqual(copy["directions"], rung["directions"])
            self.assertEqual(copy["block_bytes"], rung["block_bytes"])
            self.assertEqual((copy["mode"], copy["reference_mode"]), ("copy", "sendfile"))
            self.assertEqual(copy["rung_mode"], rung["mode"])
            # One of the two compared runs is the rung's own of this meeting.
            rate = got[("fabric_probe_throughput_bytes_per_second", "tcp_multi", d, None)]
            copied = got[("fabric_probe_throughput_bytes_per_second", "tcp_multi_copy", d, None)]
            reference = got[("fabric_probe_reference_throughput_bytes_per_second", "tcp_multi_copy", d, None)]
            self.assertEqual(copied if rung["mode"] == "copy" else reference, rate)
            self.assertGreater(min(copied, reference), 0)
            print(f"tcp_multi_copy/{d}: copy {copied / 1e9:.2f} / sendfile {reference / 1e9:.2f} GB/s "
                  f"= {copied / reference:.2f} at {int(copy['block_bytes']) >> 10} KiB, "
                  f"{copy['directions']}, rung ran {rung['mode']}")
        # The buffered read carries the direct read of its own slot: two runs in one record.
        body = exporter.metrics()
        buffered = samples(body)
        direct = buffered[("fabric_probe_reference_throughput_bytes_per_second", "storage_read_buffered", "", None)]
        self.assertGreater(direct, 0)
        self.assertEqual(labelled(INFO, body)[("storage_read_buffered", "")][0]["direct"], "false")
        # Each run measures warm-up + duration at least (0.1 s + 0.5 s).
        self.assertGreaterEqual(
            buffered[("fabric_probe_run_duration_seconds", "storage_read_buffered", "", None)], 2 * 0.6)
        print(f"storage_read_buffered: {buffered[('fabric_probe_throughput_bytes_per_second', 'storage_read_buffered', '', None)] / 1e9:.2f}"
              f" / direct {direct / 1e9:.2f} GB/s in one slot")


if __name__ == "__main__":
    unittest.main(verbosity=2)
