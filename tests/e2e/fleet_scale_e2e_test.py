#!/usr/bin/env python3
"""The running exporter at fleet scale (issue 22): one real fabric_exporter as node-00 of a
40-node fleet in four racks, with a state file holding a good multi-stream result to every
peer. The peers do not exist (nothing listens on their loopback addresses), so every run this
node makes fails. It must publish per-pair series only for its detail peers (recent plan peers,
the bisection's) and fold every other peer's result into the per-rack summaries, check paths by
the rack rotation rather than every peer, and, once its plan round and both retests have failed,
blame itself through fabric_probe_suspect: the code the fleet simulator measures is the code
this binary runs (exporter/scheduled_probes/probe_detail_set.h)."""
import json
import os
import random
import re
import tempfile
import time
import unittest

from fabric_testlib.exporter_process import Exporter
from fabric_testlib.listening import free_port

NODES = 40
RACKS = 4
ROUND = 12  # Retest slots at 4 s and 8 s of each round.
DEADLINE_SECONDS = 150
SAMPLE = re.compile(r'^(fabric_[a-z_0-9]+)(?:\{([^}]*)\})? (\S+)$', re.M)


def name(i):
    return f"node-{i:02d}"


def address(i):
    # node-00 is this exporter (its responder listens there); nothing listens at the others.
    return "127.0.0.1" if i == 0 else f"127.0.1.{i}"


def config(state, port):
    nodes = "\n".join(
        f"    - {{name: {name(i)}, address: {address(i)}, interface: lo, rack: r{i % RACKS}}}"
        for i in range(NODES))
    return f"""
fleet:
  self: node-00
  nodes:
{nodes}
probes:
  state_file: {state}/state.yml
  secret_file: {state}/probe.secret
  max_splay: 0s
  path: {{interval: 1s}}
  tcp: {{round: {ROUND}s, duration: 200ms, warmup: 0s, streams: 2, single_stream: false,
         port: {port}, calibration: {{enabled: false}}}}
"""


def state_file(now):
    """A good tcp_multi result in both directions to every peer, a minute old."""
    results = []
    for i in range(1, NODES):
        for direction in ("send", "receive"):
            results.append({
                "probe": "tcp_multi", "target": name(i), "direction": direction,
                "timestamp": now - 60, "success": True, "failure_reason": "", "failure_detail": "",
                "duration": 0.2, "values": {"throughput_bytes_per_second": 1.0e9, "streams": 2},
                "verdicts": {}, "info": {}, "period": 0,
            })
    return json.dumps({"version": 1, "results": results})


def parse(body):
    out = []
    for m in SAMPLE.finditer(body):
        labels = dict(re.findall(r'([a-z_]+)="([^"]*)"', m.group(2) or ""))
        out.append((m.group(1), labels, float(m.group(3))))
    return out


class FleetScaleTest(unittest.TestCase):
    def test_detail_is_bounded_and_the_bisection_blames(self):
        with tempfile.TemporaryDirectory(prefix="fleet-scale-") as state:
            with open(os.path.join(state, "probe.secret"), "w") as f:
                f.write("%064x\n" % random.getrandbits(256))
            os.chmod(os.path.join(state, "probe.secret"), 0o600)
            with open(os.path.join(state, "state.yml"), "w") as f:
                f.write(state_file(time.time()))
            path = os.path.join(state, "fabric_exporter.yml")
            with open(path, "w") as f:
                f.write(config(state, free_port()))
            start = time.monotonic()
            with Exporter("--config.file=" + path) as exporter:
                suspects = []
                checked_rounds = 0
                while time.monotonic() - start < DEADLINE_SECONDS:
                    samples = parse(exporter.metrics())
                    self.check_bounded(samples, exporter)
                    checked_rounds += 1
                    suspects = [l for n, l, _ in samples if n == "fabric_probe_suspect"]
                    if suspects:
                        break
                    time.sleep(1)
                elapsed = time.monotonic() - start
                log = "".join(exporter.log_lines)
                self.assertTrue(suspects, f"no fabric_probe_suspect after {elapsed:.0f}s:\n"
                                + "".join(exporter.log_lines[-40:]))
                # Every peer is unreachable: after the plan round's failure the retest in the
                # target's rack and the one in this node's rack fail too, so this end is to blame.
                self.assertEqual({l["suspect"] for l in suspects}, {"self"}, suspects)
                self.assertTrue(all(re.fullmatch(r"node-\d\d", l["target"]) for l in suspects))
                self.assertIn("bisection judges failed runs only", log)
                self.assertIn("bisection retest", log)
                # The blamed target is a detail peer. The suspect is published
                # as the second retest is judged, its run counted only once the
                # retest has written the state file and returned to the
                # scheduler: the count is awaited, not read once.
                runs_deadline = time.monotonic() + 20
                while True:
                    samples = parse(exporter.metrics())
                    detail = self.check_bounded(samples, exporter)
                    runs = {l["outcome"]: v for n, l, v in samples
                            if n == "fabric_probe_runs_total" and l.get("target") == "retest"}
                    if runs.get("failure", 0) >= 2 or time.monotonic() > runs_deadline:
                        break
                    time.sleep(0.5)
                for l in suspects:
                    self.assertIn(l["target"], detail)
                self.assertGreaterEqual(runs.get("failure", 0), 2, runs)
                print(f"fleet scale: {len(detail)} detail peers of {NODES - 1}, suspect "
                      f"{suspects[0]['target']}={suspects[0]['suspect']} after {elapsed:.0f}s "
                      f"({checked_rounds} scrapes checked)")

    def check_bounded(self, samples, exporter):
        """Asserts one scrape's bound; returns the targets with per-pair tcp_multi series."""
        peers = {name(i) for i in range(1, NODES)}
        ran = {l["target"] for n, l, v in samples
               if n == "fabric_probe_last_run_timestamp_seconds" and l.get("probe") == "tcp_multi"
               and l.get("direction") == "send" and v > 0}
        per_pair = {l["target"] for n, l, _ in samples
                    if n.startswith("fabric_probe_") and l.get("probe") == "tcp_multi"
                    and "target" in l and l["target"] != "plan" and l["target"] != "retest"}
        # Detail: this and the last two rounds' plan peers and the bisection's (one case,
        # its retest peer), never the fleet.
        self.assertLessEqual(len(per_pair), 5, sorted(per_pair))
        self.assertLessEqual(per_pair, peers)
        # Every other peer's result (all 39 have one) is in its rack's summary.
        summarised = {l["target_rack"]: v for n, l, v in samples
                      if n == "fabric_probe_rack_paths" and l.get("probe") == "tcp_multi"
                      and l.get("direction") == "send"}
        self.assertEqual(set(summarised), {f"r{r}" for r in range(RACKS)},
                         "\n".join(exporter.log_lines[-20:]))
        self.assertEqual(sum(summarised.values()) + len(ran), NODES - 1, (summarised, sorted(ran)))
        medians = [v for n, l, v in samples if n == "fabric_probe_rack_throughput_bytes_per_second"
                   and l.get("probe") == "tcp_multi" and l.get("stat") == "median"]
        self.assertTrue(medians)
        self.assertTrue(all(v == 1.0e9 for v in medians), medians)
        # Path checks: the detail peers (at most the 5 above when the last path run began) and
        # one member of a third of the racks (2 of 4 at most) per interval, each published
        # only right after its check.
        checked = {l["target"] for n, l, v in samples
                   if n == "fabric_probe_last_run_timestamp_seconds" and l.get("probe") == "path"}
        self.assertLessEqual(len(checked), 5 + 2, sorted(checked))
        self.assertLessEqual(checked, peers)
        # The peers' join series follow the per-pair ones: every peer a record or a blame
        # names has its fabric_fleet_peer_info, and beyond those only the mesh's targets (16
        # by default) do, so they do not grow with the fleet.
        info = {l["peer"] for n, l, _ in samples if n == "fabric_fleet_peer_info"}
        named = {l["target"] for n, l, _ in samples
                 if n in ("fabric_probe_last_run_timestamp_seconds", "fabric_probe_suspect")
                 and l.get("target") in peers}
        self.assertLessEqual(named, info, sorted(named - info))
        self.assertLessEqual(len(info - named), 16, sorted(info - named))
        self.assertLess(len(info), NODES - 1, sorted(info))
        return per_pair


if __name__ == "__main__":
    unittest.main(verbosity=2)
