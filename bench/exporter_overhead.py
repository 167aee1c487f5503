#!/usr/bin/env python3
"""What fabric_exporter itself costs its node, against Debian's
prometheus-node-exporter on the same host: both with their default settings
over one large synthetic host (tests/tools/make_large_fixture.py: 128 CPUs, 16
NICs with 400 driver statistics each, 256 PCI devices, 8 RoCE ports), scraped
as Prometheus does (every --interval seconds, gzip) for --duration seconds.

fabric_exporter runs its default collectors and config (no fleet, so no probe
runs: this is the cost between probes); node_exporter runs its own defaults.
CPU is each process's utime+stime over the measured period (/proc/PID/stat),
given as CPU seconds per hour and as a share of one core; RSS is VmRSS and
VmHWM from /proc/PID/status at the end. fabric_exporter's own
process_cpu_seconds_total and process_resident_memory_bytes are read from its
last scrape and printed beside them, so the published figures can be checked
against the kernel's.

The goal (issue 45): at most 1% of one core and 50 MiB.

Usage: bench/exporter_overhead.py [--duration 300] [--interval 15]
           [--exporter build/bin/fabric_exporter]
"""
import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scrape_vs_node_exporter import (GENERATOR, NODE_EXPORTER, SOURCE, Target,  # noqa: E402
                                     free_port)


def fabric_default_args(binary, tree, port):
    return [binary, f"--web.listen-address=127.0.0.1:{port}",
            "--path.procfs=" + os.path.join(tree, "proc"),
            "--path.sysfs=" + os.path.join(tree, "sys"), "--log.level=warn"]


def node_default_args(tree, port):
    return [NODE_EXPORTER, f"--web.listen-address=127.0.0.1:{port}",
            "--path.procfs=" + os.path.join(tree, "proc"),
            "--path.sysfs=" + os.path.join(tree, "sys"), "--log.level=error"]


def published(target, name):
    """A sample's value from the target's exposition (None when absent)."""
    _, body, encoding = target.scrape()
    text = (gzip.decompress(body) if encoding == "gzip" else body).decode()
    m = re.search(r"^%s (\S+)$" % re.escape(name), text, re.M)
    return float(m.group(1)) if m else None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--duration", type=float, default=300, help="measured seconds (default 300)")
    p.add_argument("--interval", type=float, default=15,
                   help="seconds between scrapes, as a Prometheus scrape_interval (default 15)")
    p.add_argument("--exporter", default=os.path.join(SOURCE, "build", "bin", "fabric_exporter"))
    p.add_argument("--tmpdir", default="/dev/shm" if os.path.isdir("/dev/shm") else None)
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    if shutil.which(NODE_EXPORTER) is None:
        raise SystemExit("prometheus-node-exporter is not installed (apt-get install "
                         "prometheus-node-exporter; scripts/setup-deps does)")
    if not os.access(a.exporter, os.X_OK):
        p.error(f"--exporter {a.exporter}: no such executable (build it: cmake --build build "
                "--target fabric_exporter)")
    if a.duration < a.interval or a.interval <= 0:
        p.error("--duration must be at least one --interval, and --interval above 0")
    got = subprocess.run([NODE_EXPORTER, "--version"], capture_output=True, text=True)
    version = (got.stdout + got.stderr).splitlines()[0]
    with tempfile.TemporaryDirectory(prefix="fabric-bench-", dir=a.tmpdir) as tmp:
        tree = os.path.join(tmp, "host")
        shape = json.loads(subprocess.run([sys.executable, GENERATOR, tree], check=True,
                                          capture_output=True, text=True).stdout)
        ports = [free_port() for _ in range(2)]
        targets = [Target("fabric_exporter", fabric_default_args(a.exporter, tree, ports[0]),
                          ports[0], True),
                   Target("node_exporter", node_default_args(tree, ports[1]), ports[1], True)]
        try:
            for t in targets:
                t.start()
                t.scrape()  # The first scrape opens and caches what later ones re-read.
            cpu0 = [t.cpu_seconds() for t in targets]
            start = time.monotonic()
            scrapes = 0
            while time.monotonic() - start < a.duration:
                for t in targets:
                    t.scrape()
                scrapes += 1
                time.sleep(max(0.0, start + scrapes * a.interval - time.monotonic()))
            elapsed = time.monotonic() - start
            cpu = [t.cpu_seconds() - c for t, c in zip(targets, cpu0)]
            mem = [t.status() for t in targets]
            own_cpu = published(targets[0], "process_cpu_seconds_total")
            own_rss = published(targets[0], "process_resident_memory_bytes")
        finally:
            for t in targets:
                t.stop()
    rows = [dict(name=t.name, cpu_seconds_per_hour=c / elapsed * 3600,
                 core_percent=c / elapsed * 100, rss_mib=m["VmRSS"] / 1024,
                 hwm_mib=m["VmHWM"] / 1024) for t, c, m in zip(targets, cpu, mem)]
    command = ("bench/exporter_overhead.py " + " ".join(sys.argv[1:])).strip()
    if a.json:
        print(json.dumps(dict(rows=rows, shape=shape, node_exporter=version, scrapes=scrapes,
                              seconds=elapsed, published_cpu_seconds=own_cpu,
                              published_rss_bytes=own_rss, command=command), indent=1))
        return
    print(f"host: {shape['cpus']} CPUs, {shape['nics']} NICs x {shape['driver_stats_per_nic']} "
          f"driver statistics, {shape['pci_devices']} PCI devices, {shape['rdma_ports']} RDMA "
          f"ports; default settings; {scrapes} scrapes every {a.interval:g} s over "
          f"{elapsed:.0f} s; gzip; {version}\n")
    print("| exporter | CPU s/hour | % of one core | VmRSS MiB | VmHWM MiB |")
    print("| --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['name']} | {r['cpu_seconds_per_hour']:.1f} | {r['core_percent']:.3f} | "
              f"{r['rss_mib']:.1f} | {r['hwm_mib']:.1f} |")
    ours, theirs = rows
    print(f"| **ratio** fabric / node | {ours['cpu_seconds_per_hour'] / theirs['cpu_seconds_per_hour']:.2f}× | "
          f"| {ours['rss_mib'] / theirs['rss_mib']:.2f}× | {ours['hwm_mib'] / theirs['hwm_mib']:.2f}× |")
    goal = ours["core_percent"] <= 1 and ours["hwm_mib"] <= 50
    print(f"\ngoal (at most 1% of one core and 50 MiB): {'met' if goal else 'NOT met'}")
    if own_cpu is not None and own_rss is not None:
        print(f"fabric_exporter's own series at the end: process_cpu_seconds_total {own_cpu:.2f}, "
              f"process_resident_memory_bytes {own_rss / 2**20:.1f} MiB")
    print(f"\ncommand: {command}")


if __name__ == "__main__":
    main()
