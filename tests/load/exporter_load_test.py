#!/usr/bin/env python3
"""Load: `wrk -c 64 -t 2 --timeout 10s --latency` against /metrics of a fabric_exporter
that is probing at the same time, over the real /proc and /sys.

Two exporters form a two-node fleet on loopback addresses (127.0.0.2 and
127.0.0.3, interface lo): each runs its embedded responder, path probes every
second (route lookup and a DF-set ICMP echo of the path MTU) and TCP probes
(2 streams, both directions) in every 5 s plan round. node-a is loaded:

  1. warm-up: wrk for WARMUP seconds, then VmRSS is sampled;
  2. load: wrk for DURATION seconds (64 connections, 2 threads) while
     /-/healthy is polled twice a second;
  3. VmRSS again.

Fails on any wrk socket error or non-2xx answer, a /-/healthy answer other
than 200, RSS growth beyond the allowance (a leak of 100 bytes per request
would exceed it on this run; --no-rss-check under sanitizers, whose
allocator quarantine grows RSS by design), or no probe run completing during
the load. Prints the latency percentiles and what it measured.

Usage: exporter_load_test.py [--duration 60] [--warmup 10] [--no-rss-check]
Exit 77 (skipped) without wrk.
"""
import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from fabric_testlib.exporter_process import Exporter, samples

NODES = {"node-a": "127.0.0.2", "node-b": "127.0.0.3"}
CONFIG = """
fleet:
  self: {self}
  nodes:
    - {{name: node-a, address: 127.0.0.2, interface: lo, mtu: 9000}}
    - {{name: node-b, address: 127.0.0.3, interface: lo, mtu: 9000}}
probes:
  secret_file: {secret}
  state_file: {state}
  max_splay: 0s
  path: {{interval: 1s}}
  tcp: {{round: 5s, duration: 1s, warmup: 300ms, streams: 2, single_stream: false, port: {port},
         calibration: {{enabled: false}}}}
"""
RSS_ALLOWANCE_KIB = 2048


def free_port(host):
    # Both responders listen on the same port on their own address.
    with socket.socket() as a, socket.socket() as b:
        a.bind((host, 0))
        port = a.getsockname()[1]
        b.bind(("127.0.0.3", port))
        return port


def vm_rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def run_wrk(url, seconds):
    # --timeout 10s: Prometheus' default scrape_timeout. wrk's own default
    # (2 s) counts a scrape queued behind 63 others on a busy 2-core machine
    # as an error although Prometheus would have taken it.
    r = subprocess.run(["wrk", "-c", "64", "-t", "2", "-d", f"{seconds}s", "--timeout", "10s",
                        "--latency", url],
                       capture_output=True, text=True, timeout=seconds + 60)
    if r.returncode != 0:
        raise AssertionError(f"wrk failed ({r.returncode}): {r.stdout}{r.stderr}")
    return r.stdout


def parse_wrk(text):
    out = {"text": text}
    m = re.search(r"(\d+) requests in ([\d.]+)(\w+),", text)
    if not m:
        raise AssertionError("wrk printed no request count:\n" + text)
    out["requests"] = int(m.group(1))
    out["rps"] = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    out["latency"] = dict(re.findall(r"^\s+(50|75|90|99)%\s+(\S+)", text, re.M))
    out["latency"]["max"] = re.search(r"Latency\s+\S+\s+\S+\s+(\S+)", text).group(1)
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    out["socket_errors"] = tuple(int(x) for x in m.groups()) if m else (0, 0, 0, 0)
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    out["non_2xx"] = int(m.group(1)) if m else 0
    return out


def probe_runs(body):
    """{(probe, outcome): runs} summed over targets."""
    runs = {}
    for series, value in samples(body).items():
        if not series.startswith("fabric_probe_runs_total{"):
            continue
        labels = dict(re.findall(r'(\w+)="([^"]*)"', series))
        key = (labels["probe"], labels["outcome"])
        runs[key] = runs.get(key, 0) + value
    return runs


class HealthPoller(threading.Thread):
    def __init__(self, url):
        super().__init__(daemon=True)
        self.url, self.stop, self.results = url, threading.Event(), []

    def run(self):
        while not self.stop.wait(0.5):
            start = time.monotonic()
            try:
                with urllib.request.urlopen(self.url, timeout=10) as r:
                    status = r.status
            except Exception as e:  # noqa: BLE001 - any failure is a result
                status = repr(e)
            self.results.append((status, time.monotonic() - start))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--duration", type=int, default=int(os.environ.get("FABRIC_LOAD_SECONDS", 60)))
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--no-rss-check", action="store_true")
    a = p.parse_args()
    if shutil.which("wrk") is None:
        print("SKIP: wrk is not installed (scripts/setup-deps --test installs it)")
        return 77
    with tempfile.TemporaryDirectory(prefix="fabric-load-") as tmp:
        secret = os.path.join(tmp, "secret")
        with open(secret, "w") as f:
            f.write("0123456789abcdef0123456789abcdef\n")
        os.chmod(secret, 0o600)
        port = free_port("127.0.0.2")
        configs = {}
        for name in NODES:
            configs[name] = os.path.join(tmp, name + ".yml")
            with open(configs[name], "w") as f:
                f.write(CONFIG.format(self=name, secret=secret, port=port,
                                      state=os.path.join(tmp, name + ".state")))
        with Exporter("--config.file=" + configs["node-b"]), \
                Exporter("--config.file=" + configs["node-a"]) as node_a:
            url = node_a.base_url + "/metrics"
            run_wrk(url, a.warmup)
            rss_before = vm_rss_kib(node_a.proc.pid)
            runs_before = probe_runs(node_a.metrics())
            health = HealthPoller(node_a.base_url + "/-/healthy")
            health.start()
            wrk = parse_wrk(run_wrk(url, a.duration))
            health.stop.set()
            health.join()
            rss_after = vm_rss_kib(node_a.proc.pid)
            body = node_a.metrics()
            runs_after = probe_runs(body)
            alive = node_a.proc.poll() is None
        log = "".join(node_a.log_lines)
    ran = {k: runs_after.get(k, 0) - runs_before.get(k, 0) for k in runs_after}
    ran = {k: v for k, v in ran.items() if v}
    health_max = max((t for _, t in health.results), default=float("nan"))
    print(f"wrk -c 64 -t 2 -d {a.duration}s --timeout 10s --latency {url}")
    print(f"  {wrk['requests']} requests, {wrk['rps']:.0f}/s; latency "
          + ", ".join(f"{'' if k == 'max' else 'p'}{k} {v}" for k, v in wrk["latency"].items()))
    print(f"  socket errors (connect, read, write, timeout) {wrk['socket_errors']}; "
          f"non-2xx {wrk['non_2xx']}")
    print(f"  /-/healthy during load: {len(health.results)} polls, max {health_max * 1e3:.0f} ms")
    print(f"  VmRSS after {a.warmup}s warm-up {rss_before} KiB, after load {rss_after} KiB "
          f"({rss_after - rss_before:+d} KiB)")
    print(f"  probe runs during load: {ran}")
    failures = []
    if not alive:
        failures.append("the exporter died under load:\n" + log[-3000:])
    if wrk["requests"] == 0:
        failures.append("wrk completed no request")
    if any(wrk["socket_errors"]) or wrk["non_2xx"]:
        failures.append("wrk saw errors:\n" + wrk["text"])
    bad = [s for s, _ in health.results if s != 200]
    if bad or not health.results:
        failures.append(f"/-/healthy did not answer 200 throughout: {bad[:5]}")
    if not a.no_rss_check and rss_after - rss_before > RSS_ALLOWANCE_KIB:
        failures.append(f"RSS grew {rss_after - rss_before} KiB over the load "
                        f"(allowance {RSS_ALLOWANCE_KIB} KiB)")
    if not any(probe == "path" for probe, _ in ran):
        failures.append(f"no path probe ran during the load: {ran}")
    if a.duration >= 20 and not ran.get(("tcp_multi", "success")):
        failures.append(f"no TCP probe succeeded during the load: {ran}")
    if "level=error" in log or '"level":"error"' in log:
        failures.append("the exporter logged errors:\n" + log[-3000:])
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
