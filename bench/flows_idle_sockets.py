#!/usr/bin/env python3
"""Scrape cost of the flows collector with many idle sockets, beside ss(8).

Creates namespaces fl9x (clients, exporter) and fl9y (listener) joined by a
veth pair in 198.18.9.64/30, opens N idle TCP connections for each N in
--counts, and measures in the same run:

  ours: a full /metrics scrape of fabric_exporter with only the flows
        collector on (HTTP round trip), and the collector's own
        fabric_scrape_collector_duration_seconds;
  ss:   `ss -tinH` (iproute2, the same sock_diag dump with TCP_INFO) as a
        process, printing the sockets it finds.

Prints medians, the ratio ours/ss and the exported sample count (which must
not grow with idle sockets). Needs root. Not part of ctest.

  sudo python3 bench/flows_idle_sockets.py [--counts 0,2000,10000] [--runs 10]
"""
import argparse
import os
import statistics
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# bench/ runs by hand, often under sudo (which drops PYTHONPATH): find tests/lib itself.
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
PEER = os.path.join(ROOT, "tests", "netns", "flow_peer.py")
NS_C, NS_S = "fl9x", "fl9y"
CLIENT, SERVER = "198.18.9.65", "198.18.9.66"


def sh(*cmd, check=True):
    return subprocess.run(cmd, check=check, capture_output=True, text=True)


def teardown():
    for ns in (NS_C, NS_S):
        sh("ip", "netns", "del", ns, check=False)


def setup():
    teardown()
    for ns in (NS_C, NS_S):
        sh("ip", "netns", "add", ns)
        sh("ip", "-n", ns, "link", "set", "lo", "up")
    sh("ip", "link", "add", "fl9x0", "netns", NS_C, "type", "veth", "peer", "name", "fl9y0",
       "netns", NS_S)
    sh("ip", "-n", NS_C, "addr", "add", CLIENT + "/30", "dev", "fl9x0")
    sh("ip", "-n", NS_S, "addr", "add", SERVER + "/30", "dev", "fl9y0")
    sh("ip", "-n", NS_C, "link", "set", "fl9x0", "up")
    sh("ip", "-n", NS_S, "link", "set", "fl9y0", "up")


def start(ns, *args):
    proc = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, PEER, *args],
                            stdout=subprocess.PIPE, text=True)
    if proc.stdout.readline().strip() != "ready":
        proc.kill()
        raise RuntimeError("flow_peer did not start")
    return proc


def stop(proc):
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def outside(args):
    if os.geteuid() != 0:
        print("needs root (network namespaces)")
        return 1
    setup()
    sink = None
    try:
        sink = start(NS_S, "sink", "--listen", SERVER + ":5009")
        return subprocess.run(["ip", "netns", "exec", NS_C, sys.executable,
                               os.path.abspath(__file__), "--inside", "--counts", args.counts,
                               "--runs", str(args.runs)]).returncode
    finally:
        try:
            if sink:
                stop(sink)
        finally:
            teardown()


def timed(fn, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def inside(args):
    from fabric_testlib.exporter_process import Exporter
    rows = []
    with Exporter("--collector.disable-defaults", "--collector.flows") as exporter:
        url = exporter.base_url + "/metrics"

        def scrape():
            with urllib.request.urlopen(url, timeout=30) as r:
                return r.read().decode()

        for count in [int(c) for c in args.counts.split(",")]:
            idle = start(NS_C, "idle", "--to", SERVER + ":5009", "--count", str(count)) \
                if count else None
            try:
                scrape()  # Baselines for the new sockets.
                # The collector serves scrapes within 1 s of its last dump
                # from that dump: space them so every scrape dumps.
                scrape_times, durations, body = [], [], ""
                for _ in range(args.runs):
                    time.sleep(1.05)
                    t = time.perf_counter()
                    body = scrape()
                    scrape_times.append(time.perf_counter() - t)
                    for line in body.splitlines():
                        if line.startswith('fabric_scrape_collector_duration_seconds{collector="flows"}'):
                            durations.append(float(line.split()[-1]))
                ours = statistics.median(scrape_times)
                samples = sum(1 for l in body.splitlines()
                              if l and not l.startswith("#") and not l.startswith("exposer_"))
                sockets = [l for l in body.splitlines() if l.startswith("fabric_flows_sockets ")]
                ss = timed(lambda: subprocess.run(["ss", "-tinH"], capture_output=True, check=True),
                           args.runs)
                ss_lines = len(subprocess.run(["ss", "-tinH"], capture_output=True, text=True)
                               .stdout.splitlines())
                rows.append((count, sockets[0].split()[-1] if sockets else "?", ours,
                             statistics.median(durations), ss, ss_lines, samples))
            finally:
                if idle:
                    stop(idle)
    print(f"{'idle':>6} {'seen':>6} {'scrape ms':>10} {'collector ms':>13} {'ss -tin ms':>11} "
          f"{'ours/ss':>8} {'samples':>8}")
    for count, seen, ours, coll, ss, _, samples in rows:
        print(f"{count:>6} {seen:>6} {ours * 1e3:>10.2f} {coll * 1e3:>13.2f} {ss * 1e3:>11.2f} "
              f"{ours / ss:>8.2f} {samples:>8}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--inside", action="store_true")
    parser.add_argument("--counts", default="0,2000,10000")
    parser.add_argument("--runs", type=int, default=10)
    a = parser.parse_args()
    sys.exit(inside(a) if a.inside else outside(a))
