#!/usr/bin/env python3
"""FabricRateLowAfterFlap over real measured values (issue 26). Two nodes in
namespaces joined by a bridge in a hub namespace, each running fabric_exporter
with the same fleet config. A tc token bucket on node-1's fabric veth sets its
send rate to node-2, so every tcp_multi send result is decided by the shaper,
not by CPU noise on a loaded machine:

1. before: node-1's egress capped at BEFORE_MBIT; its first result;
2. a real carrier flap: the hub end of node-1's veth set down and up FLAPS
   times, counted by node-1's netdev collector on its fleet interface
   (role="fabric", from the fleet config's `interface`);
3. degraded: the cap lowered far below the rule's threshold; near-miss: a cap
   that stays above it; a new result each (one whose run started after the
   change, from fabric_probe_last_run_timestamp_seconds minus
   fabric_probe_run_duration_seconds);
4. promtool evaluates the compiled bundle over input series built from those
   scraped values (the before rate through the lookback, then the after rate;
   the carrier counter at 0, then the scraped difference): the degraded case
   fires with the rule's labels and annotations, the near-miss case and a
   degraded rate without a flap fire nothing.

Needs root and tc; exits 77 (skip) otherwise. Namespaces and addresses use
the prefix fl26 and 198.18.26.64/26. Every wait is for a state, with a
deadline; nothing asserts on elapsed time."""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

import yaml

from fabric_testlib.exporter_process import EXPORTER, SOURCE_DIR, Exporter, samples
from fabric_testlib.netns import Namespaces, ip, require_root

HUB = "fl26hub"
# name: (namespace, fabric address, the hub end of its veth)
NODES = {"node-1": ("fl26n1", "198.18.26.65", "port1"),
         "node-2": ("fl26n2", "198.18.26.66", "port2")}
ROUND_SECONDS = 4
CONFIG = """
fleet:
  self: {self}
  nodes:
{nodes}
probes:
  secret_file: {secret}
  max_splay: 0s
  budget: 1
  path: {{enabled: false}}
  mesh: {{enabled: false}}
  tcp: {{round: {round}s, duration: 1s, warmup: 300ms, streams: 2, single_stream: false,
         calibration: {{enabled: false}}}}
collectors:
  flows: {{enabled: false}}
  netdev: {{interfaces: [fab0]}}
"""
# node-1's egress caps (Mbit/s). The rule's threshold is (1 - postFlapFraction)
# = 0.7 of the best rate before the flap: 100/400 = 0.25 is far below it and
# 320/400 = 0.8 above it (checked against the rule file in the test).
BEFORE_MBIT, DEGRADED_MBIT, NEAR_MISS_MBIT = 400, 100, 320
# node-2's egress (node-1's receive direction, measured in the same session)
# is capped too, so neither direction runs at veth speed and loads the CPUs.
PEER_MBIT = 400
FLAPS = 2
WAIT_SECONDS = 120
RULES = os.path.join(SOURCE_DIR, "rules", "fabric-ladder.rules.yml")
ALERT = "FabricRateLowAfterFlap"
INSTANCE = "node-1"
SEND = 'direction="send",probe="tcp_multi",target="node-2"'
THROUGHPUT = f"fabric_probe_throughput_bytes_per_second{{{SEND}}}"
LAST_RUN = f"fabric_probe_last_run_timestamp_seconds{{{SEND}}}"
RUN_DURATION = f"fabric_probe_run_duration_seconds{{{SEND}}}"
SUCCESS = f"fabric_probe_success{{{SEND}}}"
CARRIER = 'fabric_netdev_carrier_transitions_total{{device="fab0",role="fabric",transition="{}"}}'


def shape(ns, mbit):
    """A token bucket on the namespace's fab0 egress. The burst (256 KiB) holds
    a whole GSO frame; the 50 ms queue keeps the bucket busy through short
    CPU stalls, so the measured rate is the cap's."""
    subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "replace", "dev", "fab0", "root",
                    "tbf", "rate", f"{mbit}mbit", "burst", "256kb", "latency", "50ms"],
                   check=True, capture_output=True, text=True)


def minutes(duration):
    """A Prometheus duration (1d, 6h, 1h30m) in minutes."""
    units = {"s": 1 / 60, "m": 1, "h": 60, "d": 1440, "w": 10080}
    parts = re.findall(r"(\d+)([smhdw])", duration)
    assert parts and "".join(n + u for n, u in parts) == duration, duration
    return sum(int(n) * units[u] for n, u in parts)


def humanize(v):
    """Go's template `humanize` (prometheus/template) for v >= 1: SI prefixes, %.4g."""
    assert v >= 1, v
    prefix = ""
    for p in ("k", "M", "G", "T", "P", "E", "Z", "Y"):
        if abs(v) < 1000:
            break
        prefix, v = p, v / 1000
    return "%.4g%s" % (v, prefix)


def render(template, labels, value):
    """The rule's annotation with its labels and value filled in: the two
    template forms the rule uses, and nothing else left unexpanded."""
    out = re.sub(r"\{\{ \$labels\.(\w+) \}\}", lambda m: labels[m.group(1)], template)
    out = out.replace("{{ $value | humanize }}", humanize(value))
    assert "{{" not in out, out
    return out


def with_target(series, labels):
    """A scraped series as Prometheus stores it from its target: job and instance added."""
    extra = ",".join(f'{k}="{v}"' for k, v in labels.items())
    return series[:-1] + "," + extra + "}"


def labels_of(series):
    return dict(re.findall(r'(\w+)="([^"]*)"', series))


class FlapRateTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_root()
        if subprocess.run(["which", "tc"], capture_output=True).returncode != 0:
            print("SKIP: tc not installed")
            raise SystemExit(77)
        cls.ns = Namespaces(HUB, *(ns for ns, _, _ in NODES.values())).__enter__()
        cls.tmp = tempfile.TemporaryDirectory()
        try:
            ip("-n", HUB, "link", "add", "br0", "type", "bridge")
            ip("-n", HUB, "link", "set", "br0", "up")
            for ns, address, port in NODES.values():
                ip("link", "add", "fab0", "netns", ns, "type", "veth", "peer", "name", port,
                   "netns", HUB)
                ip("-n", ns, "addr", "add", address + "/26", "dev", "fab0")
                ip("-n", ns, "link", "set", "fab0", "up")
                ip("-n", HUB, "link", "set", port, "master", "br0", "up")
            # Before the first measurement: every result is the shaper's.
            shape(NODES["node-1"][0], BEFORE_MBIT)
            shape(NODES["node-2"][0], PEER_MBIT)
            secret = os.path.join(cls.tmp.name, "secret")
            with open(secret, "w") as f:
                f.write("0123456789abcdef0123456789abcdef\n")
            os.chmod(secret, 0o600)
            nodes = "\n".join(f"    - {{name: {name}, address: {address}, interface: fab0}}"
                              for name, (_, address, _) in NODES.items())
            cls.configs = {}
            for name in NODES:
                path = os.path.join(cls.tmp.name, name + ".yml")
                with open(path, "w") as f:
                    f.write(CONFIG.format(self=name, nodes=nodes, secret=secret,
                                          round=ROUND_SECONDS))
                cls.configs[name] = path
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.ns.__exit__(None, None, None)
        cls.tmp.cleanup()

    def wait_for(self, what, probe, logs):
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            got = probe()
            if got is not None:
                return got
            time.sleep(0.5)
        self.fail(f"{what}: not within {WAIT_SECONDS} s\n" + "".join(logs.log_lines[-30:]))

    def new_send_result(self, exporter, since):
        """node-1's first successful tcp_multi send result for node-2 whose run
        started after `since` (Unix time): (bytes per second, the scrape)."""
        def probe():
            s = samples(exporter.metrics())
            ended, took = s.get(LAST_RUN, 0), s.get(RUN_DURATION, 0)
            if ended - took > since and s.get(SUCCESS) == 1 and s.get(THROUGHPUT, 0) > 0:
                return s[THROUGHPUT], s
            return None
        return self.wait_for(f"a tcp_multi send result started after {since:.1f}", probe, exporter)

    def test_rate_low_after_a_real_flap(self):
        rule = self.rule()
        n1 = NODES["node-1"][0]
        with Exporter("--config.file=" + self.configs["node-1"], netns=n1) as e1, \
                Exporter("--config.file=" + self.configs["node-2"], netns=NODES["node-2"][0]):
            before, scrape = self.new_send_result(e1, 0)
            down0, up0 = scrape[CARRIER.format("down")], scrape[CARRIER.format("up")]
            # veth's carrier follows its peer: FLAPS real flaps of node-1's fab0.
            for _ in range(FLAPS):
                ip("-n", HUB, "link", "set", NODES["node-1"][2], "down")
                ip("-n", HUB, "link", "set", NODES["node-1"][2], "up")

            def counted():
                s = samples(e1.metrics())
                return s if s[CARRIER.format("up")] - up0 >= FLAPS else None
            flapped = self.wait_for("the flaps counted", counted, e1)
            down = flapped[CARRIER.format("down")] - down0
            self.assertEqual(down, FLAPS)
            self.assertEqual(flapped[CARRIER.format("up")] - up0, FLAPS)
            # The link came back slower.
            shape(n1, DEGRADED_MBIT)
            degraded, _ = self.new_send_result(e1, time.time())
            shape(n1, NEAR_MISS_MBIT)
            near_miss, _ = self.new_send_result(e1, time.time())
        print(f"tcp_multi send, bytes/s: before {before:.4g} ({BEFORE_MBIT} Mbit/s cap), "
              f"degraded {degraded:.4g} ({DEGRADED_MBIT}), near-miss {near_miss:.4g} "
              f"({NEAR_MISS_MBIT})", file=sys.stderr)
        # The shaper decides each number: the cap ratios 0.25 and 0.8, with wide margins.
        self.assertLess(degraded, 0.4 * before)
        self.assertGreater(near_miss, 0.6 * before)
        # No result above its cap (payload is less than the shaped frames).
        for rate, mbit in ((before, BEFORE_MBIT), (degraded, DEGRADED_MBIT),
                           (near_miss, NEAR_MISS_MBIT)):
            self.assertLess(rate, mbit * 1e6 / 8 * 1.05)
        self.assert_alerts(rule, before, degraded, near_miss, down)

    def rule(self):
        """The alert as compiled, with its window, lookback, `for` and fraction;
        the caps above must straddle its threshold."""
        with open(RULES) as f:
            rules = [r for g in yaml.safe_load(f)["groups"] for r in g["rules"]
                     if r.get("alert") == ALERT]
        self.assertEqual(len(rules), 1)
        rule = rules[0]
        m = re.search(r"< \(1 - ([0-9.e+-]+)\) \*", rule["expr"])
        fraction = float(m.group(1))
        lookback, window = re.search(r"\[(\w+)\] offset (\w+)\)", rule["expr"]).groups()
        self.assertIn(f"carrier_transitions_total{{job=\"fabric\", transition=\"down\", "
                      f"role=\"fabric\"}}[{window}]", rule["expr"])
        self.assertLess(DEGRADED_MBIT / BEFORE_MBIT, (1 - fraction) - 0.3)
        self.assertGreater(NEAR_MISS_MBIT / BEFORE_MBIT, (1 - fraction) + 0.05)
        rule["window"], rule["lookback"] = minutes(window), minutes(lookback)
        rule["for_minutes"] = minutes(rule["for"])
        return rule

    def assert_alerts(self, rule, before, degraded, near_miss, flaps):
        """promtool over the scraped values, at 5 m steps: the before rate from
        0 to the lookback L (a full lookback of it), the flap and the after rate
        from L + 5m. The alert is pending from L + 5m and fires once its `for`
        has passed; it has gone once the flap left the window."""
        step = 5
        lookback, window, hold = rule["lookback"], rule["window"], rule["for_minutes"]
        flap = lookback + step                 # first sample after the flap
        fires = flap + hold + step             # one evaluation after `for` passed
        gone = lookback + window + 2 * step    # the window holds no 0 -> flaps sample
        # At `fires` the offset lookback holds before samples only.
        self.assertGreaterEqual(fires - window, 0)
        self.assertLessEqual(fires - window, lookback)
        self.assertLess(fires, lookback + window)
        before_steps, after_steps = int(lookback // step), int((window + 60) // step)
        target = {"job": "fabric", "instance": INSTANCE}
        rate = with_target(THROUGHPUT, target)
        carrier = with_target(CARRIER.format("down"), target)

        def case(after, down_after):
            return [{"series": rate,
                     "values": f"{before!r}x{before_steps} {after!r}x{after_steps}"},
                    {"series": carrier,
                     "values": f"0x{before_steps} {float(down_after)!r}x{after_steps}"}]

        labels = {**labels_of(THROUGHPUT), "instance": INSTANCE}
        expected = {
            "exp_labels": {**labels, **rule["labels"]},
            "exp_annotations": {k: render(v, labels, degraded)
                                for k, v in rule["annotations"].items()},
        }
        print("expected alert: " + json.dumps(expected), file=sys.stderr)

        def at(minute, alerts):
            return {"eval_time": f"{minute}m", "alertname": ALERT, "exp_alerts": alerts}

        test = {
            "rule_files": [RULES],
            "evaluation_interval": f"{step}m",
            "tests": [
                # Degraded after the flap: pending first, then firing, then gone.
                {"name": "degraded", "interval": f"{step}m", "input_series": case(degraded, flaps),
                 "alert_rule_test": [at(fires - 2 * step, []), at(fires, [expected]),
                                     at(gone, [])]},
                # Above the threshold after the flap: nothing.
                {"name": "near-miss", "interval": f"{step}m",
                 "input_series": case(near_miss, flaps),
                 "alert_rule_test": [at(fires, []), at(fires + 60, [])]},
                # The degraded rate without a flap: nothing.
                {"name": "no flap", "interval": f"{step}m", "input_series": case(degraded, 0),
                 "alert_rule_test": [at(fires, []), at(fires + 60, [])]},
            ],
        }
        with tempfile.NamedTemporaryFile("w", suffix=".test.yml", delete=False) as f:
            json.dump(test, f)  # JSON is YAML.
        try:
            out = subprocess.run(["promtool", "test", "rules", f.name], capture_output=True,
                                 text=True, timeout=120)
        finally:
            os.unlink(f.name)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)


if __name__ == "__main__":
    require_root()
    if not os.path.exists(EXPORTER):
        print("fabric_exporter not built: " + EXPORTER)
        sys.exit(1)
    unittest.main(verbosity=2)
