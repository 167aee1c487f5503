#!/usr/bin/env python3
"""fabric_probe tcp against Debian's iperf3 side by side: loopback and a veth
pair between two network namespaces, 1 and 8 streams, fabric_probe sendfile
mode against `iperf3 -Z` (sendfile), alternating which tool goes first, a few
runs each. Prints per-run numbers and, per case, the median throughput ratio
and the ratio of CPU-seconds per GB moved (client + server processes, user +
system, whole run including warm-up; lower is better).

Run as root from the repository root after building:
    bench/tcp_probe_vs_iperf3.py [--runs 3] [--duration 5] [--paths loopback,veth]
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# bench/ runs by hand, often under sudo (which drops PYTHONPATH): find tests/lib itself.
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
from fabric_testlib import netns  # noqa: E402
from fabric_testlib.probe_process import PROBE, Secrets  # noqa: E402

PROBE_PORT, IPERF_PORT = 19878, 15201
HZ = os.sysconf("SC_CLK_TCK")


def proc_cpu(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / HZ  # utime + stime


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def ns_prefix(ns):
    return ["ip", "netns", "exec", ns] if ns else []


def wait_listen(ns, port):
    for _ in range(100):
        p = subprocess.run(ns_prefix(ns) + ["ss", "-ltnH", "sport = :%d" % port], capture_output=True, text=True)
        if p.stdout.strip():
            return
        time.sleep(0.05)
    raise RuntimeError("nothing listening on port %d" % port)


def run_client(cmd):
    """Runs a client; returns (stdout, its CPU seconds)."""
    before = children_cpu()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise RuntimeError("%s failed: %s" % (cmd[0:6], p.stderr))
    return p.stdout, children_cpu() - before


def ours(case, secret, server_pid, streams, duration):
    cmd = ns_prefix(case["client_ns"]) + [
        PROBE, "tcp", "--peer", "%s:%d" % (case["server_ip"], PROBE_PORT), "--secret-file", secret,
        "--streams", str(streams), "--duration", "%ds" % duration, "--warmup", "1s", "--mode", "sendfile",
        "--json", *case["probe_args"]]
    s0 = proc_cpu(server_pid)
    out, client_cpu = run_client(cmd)
    doc = json.loads(out)
    rate = doc["bytes_per_second"]
    return rate, client_cpu + proc_cpu(server_pid) - s0, doc["self_checks"]["cpu_bound"]


def iperf(case, server_pid, streams, duration):
    cmd = ns_prefix(case["client_ns"]) + [
        "iperf3", "-c", case["server_ip"], "-p", str(IPERF_PORT), "-Z", "-P", str(streams),
        "-t", str(duration), "-O", "1", "-J"]
    s0 = proc_cpu(server_pid)
    out, client_cpu = run_client(cmd)
    doc = json.loads(out)
    rate = doc["end"]["sum_received"]["bits_per_second"] / 8
    return rate, client_cpu + proc_cpu(server_pid) - s0, None


def bench_case(case, secret, args, rows):
    probe_srv = subprocess.Popen(ns_prefix(case["server_ns"]) + [
        PROBE, "serve", "--listen", "%s:%d" % (case["server_ip"], PROBE_PORT), "--allow", case["allow"],
        "--secret-file", secret, "--max-streams", "64"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    iperf_srv = subprocess.Popen(ns_prefix(case["server_ns"]) + [
        "iperf3", "-s", "-B", case["server_ip"], "-p", str(IPERF_PORT)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_listen(case["server_ns"], PROBE_PORT)
        wait_listen(case["server_ns"], IPERF_PORT)
        for streams in args.streams:
            for run in range(args.runs):
                tools = [("fabric_probe", lambda: ours(case, secret, probe_srv.pid, streams, args.duration)),
                         ("iperf3", lambda: iperf(case, iperf_srv.pid, streams, args.duration))]
                if run % 2:
                    tools.reverse()  # alternate who goes first
                for name, fn in tools:
                    rate, cpu, flagged = fn()
                    gb = rate * (args.duration + 1) / 1e9  # bytes moved, warm-up included
                    rows.append(dict(path=case["name"], streams=streams, tool=name, run=run + 1, rate=rate,
                                     cpu=cpu, cpu_per_gb=cpu / gb if gb else float("nan"), flagged=flagged))
                    r = rows[-1]
                    print("%-8s %2d streams run %d %-12s %8.2f Gbit/s  cpu %6.2f s  %.3f cpu-s/GB%s" % (
                        r["path"], streams, r["run"], name, rate * 8e-9, cpu, r["cpu_per_gb"],
                        "  (probe flagged cpu_bound)" if flagged else ""), flush=True)
    finally:
        for p in (probe_srv, iperf_srv):
            p.terminate()
            p.wait(timeout=10)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--duration", type=int, default=5, help="seconds measured per run (plus 1 s warm-up)")
    ap.add_argument("--paths", default="loopback,veth")
    ap.add_argument("--streams", default="1,8")
    ap.add_argument("--probe-args", default="--no-pin",
                    help="extra fabric_probe tcp flags; the default matches iperf3's own unpinned "
                         "thread placement")
    args = ap.parse_args()
    args.streams = [int(s) for s in args.streams.split(",")]
    paths = args.paths.split(",")
    rows = []
    extra = args.probe_args.split()
    ver = subprocess.run(["iperf3", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    print("fabric_probe %s (extra flags: %s) vs %s, %d CPUs, load average %s" % (
        PROBE, args.probe_args or "none", ver, os.cpu_count(), " ".join(open("/proc/loadavg").read().split()[:3])))
    with Secrets() as secrets:
        if "loopback" in paths:
            bench_case(dict(name="loopback", server_ns=None, client_ns=None, server_ip="127.0.0.1",
                            allow="127.0.0.0/8", probe_args=extra), secrets.good, args, rows)
        if "veth" in paths:
            if netns.can_run():
                print("veth skipped: " + netns.can_run())
            else:
                with netns.VethPair():
                    bench_case(dict(name="veth", server_ns=netns.SERVER_NS, client_ns=netns.CLIENT_NS,
                                    server_ip=netns.SERVER_IP, allow=netns.CLIENT_IP + "/32", probe_args=extra),
                               secrets.good, args, rows)
    print()
    print("| path | streams | fabric_probe Gbit/s | iperf3 -Z Gbit/s | throughput ratio | "
          "fabric_probe CPU-s/GB | iperf3 CPU-s/GB | CPU/GB ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for path in paths:
        for streams in args.streams:
            sel = [r for r in rows if r["path"] == path and r["streams"] == streams]
            if not sel:
                continue
            med = {t: (statistics.median(r["rate"] for r in sel if r["tool"] == t),
                       statistics.median(r["cpu_per_gb"] for r in sel if r["tool"] == t))
                   for t in ("fabric_probe", "iperf3")}
            (pr, pc), (ir, ic) = med["fabric_probe"], med["iperf3"]
            print("| %s | %d | %.2f | %.2f | %.2fx | %.3f | %.3f | %.2fx |" % (
                path, streams, pr * 8e-9, ir * 8e-9, pr / ir, pc, ic, pc / ic))
    print("\nmedians of %d runs of %d s each; CPU/GB ratio < 1 means fabric_probe used less CPU per byte"
          % (args.runs, args.duration))


if __name__ == "__main__":
    main()
