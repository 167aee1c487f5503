#!/usr/bin/env python3
"""fabric_probe tcp against iperf3 and neper tcp_stream, side by side.

Paths: loopback (the `lo` of a private network namespace, so other traffic on
the host's loopback is not counted) and a veth pair between two namespaces.
Stream counts: 1, 8 and 32 by default. Each cell pairs a fabric_probe run with
a reference run in the same sender mode and block size:

  sendfile         fabric_probe --mode sendfile --block 128K  vs  iperf3 -Z (128 KiB)
  copy             fabric_probe --mode copy --block 128K      vs  iperf3 (128 KiB writes)
  copy-1M          fabric_probe --mode copy --block 1M        vs  iperf3 -l 1M
  neper            fabric_probe --mode copy --block 16K       vs  neper tcp_stream (16 KiB)

Every run starts its own server and client and ends them, so both ends of
every tool are measured the same way: CPU is user + system time of the client
and the server process (wait4 rusage, every thread, softirq work charged to
whichever of them was running: this kernel has no IRQ time accounting) over
their whole lives; bytes are the receiving interface's rx_bytes over the same
lives (headers included, the same for every tool). Throughput is each tool's
own receiver-side figure over the same measured window (fabric_probe:
--duration after --warmup; iperf3: -t after -O; neper, which cannot omit a
warm-up: the whole -l, set to warm-up + duration). The order of the tools
rotates from run to run, and medians of --runs runs are compared.

--sweep adds fabric_probe runs at every mode x block size given and prints, per
path and stream count, each against the best figure any reference reached
there (the calibration question: which mode and block come within 5%).

Run as root from the repository root after building:
    bench/tcp_probe_vs_iperf3.py --iperf3 PATH --neper PATH [--runs 3] [--duration 4]
        [--paths loopback,veth] [--streams 1,8,32] [--cells sendfile,copy,copy-1M,neper]
        [--sweep sendfile,copy --sweep-blocks 64K,128K,256K,512K,1M,2M,4M] [--json FILE]
        [--independent 2 | --combine A.json B.json]
A result must hold run to run: --independent 2 runs the whole benchmark twice as separate
invocations, the second with the order reversed, and reports each cell per invocation,
flagging a cell whose invocations disagree on which tool is ahead.
Without --iperf3 it runs the iperf3 on PATH (Debian 12: 3.12, one thread for
all streams); without --neper the neper cells are skipped.
"""
import argparse
import json
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# bench/ runs by hand, often under sudo (which drops PYTHONPATH): find tests/lib itself.
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
from fabric_testlib import netns  # noqa: E402
from fabric_testlib.probe_process import PROBE, Secrets, require_executables  # noqa: E402

PROBE_PORT, IPERF_PORT, NEPER_CONTROL_PORT = 19878, 15201, 12866
LOOP_NS = "fl23lo-%d" % os.getpid()
HZ = os.sysconf("SC_CLK_TCK")

# cell: (mode family, fabric_probe mode, fabric_probe block, reference kind, reference flags)
CELLS = {
    "sendfile": ("sendfile", "sendfile", "128K", "iperf3", ["-Z"]),
    "copy": ("copy", "copy", "128K", "iperf3", []),
    "copy-1M": ("copy", "copy", "1M", "iperf3", ["-l", "1M"]),
    "neper": ("copy", "copy", "16K", "neper", []),
}


def ns_prefix(ns):
    return ["ip", "netns", "exec", ns] if ns else []


def taskset(cpus):
    return ["taskset", "-c", cpus] if cpus else []


def load_average():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def busy_seconds():
    """CPU seconds the whole machine has spent busy (not idle, iowait or stolen)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    user, nice, system, idle, iowait, irq, softirq = v[:7]
    return (user + nice + system + irq + softirq) / HZ


def rx_bytes(ns, dev):
    p = subprocess.run(ns_prefix(ns) + ["cat", "/sys/class/net/%s/statistics/rx_bytes" % dev],
                       capture_output=True, text=True, check=True)
    return int(p.stdout)


def wait_listen(ns, port):
    for _ in range(200):
        p = subprocess.run(ns_prefix(ns) + ["ss", "-ltnH", "sport = :%d" % port], capture_output=True,
                           text=True)
        if p.stdout.strip():
            return
        time.sleep(0.02)
    raise RuntimeError("nothing listening on port %d" % port)


class Proc:
    """A child whose CPU time is read from wait4 when it ends."""

    def __init__(self, cmd):
        self.cmd = cmd
        self.out = tempfile.TemporaryFile(mode="w+")
        self.err = tempfile.TemporaryFile(mode="w+")
        self.popen = subprocess.Popen(cmd, stdout=self.out, stderr=self.err)
        self.cpu = None

    def wait(self, timeout):
        timer = threading.Timer(timeout, lambda: os.kill(self.popen.pid, signal.SIGKILL))
        timer.start()
        try:
            _, status, ru = os.wait4(self.popen.pid, 0)
        finally:
            timer.cancel()
        self.popen.returncode = os.waitstatus_to_exitcode(status)
        self.cpu = ru.ru_utime + ru.ru_stime
        self.out.seek(0)
        self.err.seek(0)
        return self.popen.returncode

    def stdout(self):
        return self.out.read()

    def stderr(self):
        return self.err.read()


class Tool:
    def __init__(self, kind, label, family, flags, block=None):
        self.kind, self.label, self.family, self.flags, self.block = kind, label, family, flags, block

    def commands(self, path, streams, args):
        """(server argv, client argv, server port)"""
        d, w = args.duration, args.warmup
        if self.kind == "probe":
            server = [args.probe, "serve", "--listen", "%s:%d" % (path["server_ip"], PROBE_PORT),
                      "--allow", path["allow"], "--secret-file", args.secret, "--max-streams", "64"]
            client = [args.probe, "tcp", "--peer", "%s:%d" % (path["server_ip"], PROBE_PORT),
                      "--secret-file", args.secret, "--streams", str(streams),
                      "--duration", "%dms" % (d * 1000), "--warmup", "%dms" % (w * 1000), "--json",
                      *self.flags, *args.probe_args]
            return server, client, PROBE_PORT
        if self.kind == "rung":
            # The scheduled rung's code (TcpRungProbe through `fabric_probe ladder`): it calibrates
            # mode and block per direction first, then runs the fastest. One stream is the
            # N-stream rung with --streams 1, the same run as tcp_single (only the label differs).
            server = [args.probe, "serve", "--listen", "%s:%d" % (path["server_ip"], PROBE_PORT),
                      "--allow", path["allow"], "--secret-file", args.secret, "--max-streams", "64"]
            client = [args.probe, "ladder", "--peer", "%s:%d" % (path["server_ip"], PROBE_PORT),
                      "--secret-file", args.secret, "--streams", str(streams), "--no-single-stream",
                      "--no-rdma", "--duration", "%dms" % (d * 1000), "--warmup", "%dms" % (w * 1000),
                      "--json"]
            return server, client, PROBE_PORT
        if self.kind == "iperf3":
            server = [args.iperf3, "-s", "-1", "-B", path["server_ip"], "-p", str(IPERF_PORT)]
            client = [args.iperf3, "-c", path["server_ip"], "-p", str(IPERF_PORT), "-P", str(streams),
                      "-t", str(d), "-O", str(w), "-J", *self.flags]
            return server, client, IPERF_PORT
        threads = streams if args.neper_threads == "flows" else min(streams, os.cpu_count())
        # --nolog: neper otherwise leaves a log file per process in the working directory.
        common = ["--nolog", "-T", str(threads), "-F", str(streams), "-l", str(d + w), *self.flags]
        server = [args.neper, *common]
        client = [args.neper, "-c", "-H", path["server_ip"], *common]
        return server, client, NEPER_CONTROL_PORT

    def run(self, path, streams, args):
        server_cmd, client_cmd, port = self.commands(path, streams, args)
        server_cmd = ns_prefix(path["server_ns"]) + taskset(args.server_cpus) + server_cmd
        client_cmd = ns_prefix(path["client_ns"]) + taskset(args.client_cpus) + client_cmd
        wire0 = rx_bytes(path["server_ns"], path["dev"])
        busy0, t0 = busy_seconds(), time.monotonic()
        server = Proc(server_cmd)
        try:
            wait_listen(path["server_ns"], port)
        except RuntimeError:
            server.popen.kill()
            server.wait(10)
            raise RuntimeError("%s server did not start: %s" % (self.kind, server.stderr()))
        client = Proc(client_cmd)
        limit = args.duration + args.warmup + 60 + (60 if self.kind == "rung" else 0)
        rc = client.wait(limit)
        if self.kind in ("probe", "rung"):
            server.popen.terminate()  # a responder serves until told to stop
        server_rc = server.wait(limit)
        wire = rx_bytes(path["server_ns"], path["dev"]) - wire0
        # What the rest of the machine took meanwhile, as a fraction of all its CPUs.
        others = max(0.0, busy_seconds() - busy0 - client.cpu - server.cpu) / (
            (time.monotonic() - t0) * os.cpu_count())
        if rc != 0:
            raise RuntimeError("%s failed (%d): %s" % (shlex.join(client_cmd), rc, client.stderr()))
        out = client.stdout()
        flagged = None
        chosen = None
        if self.kind == "rung":
            layer = next(l for l in json.loads(out)["layers"] if l["layer"] == "tcp_multi")
            # The send direction (client to server), as the references measure; the detail says
            # "send 47.1 Gbit/s (copy, 1 MiB blocks), receive ...".
            m = re.search(r"send ([0-9.]+) ([GMk])bit/s \(([a-z]+), ([0-9]+ [KM]iB) blocks\)", layer["detail"])
            if not m:
                raise RuntimeError("no send figure in the ladder's detail: " + layer["detail"])
            rate = float(m.group(1)) * {"G": 1e9, "M": 1e6, "k": 1e3}[m.group(2)] / 8
            chosen = "%s %s" % (m.group(3), m.group(4))
            # CPU includes the calibration's runs: not comparable per byte.
            return dict(rate=rate, cpu=client.cpu + server.cpu, wire=wire, cpu_per_gb=float("nan"),
                        flagged=None,
                        client_cpu=client.cpu, server_cpu=server.cpu, others=others, chosen=chosen,
                        detail=layer["detail"], server_cmd=server_cmd, client_cmd=client_cmd)
        if self.kind == "probe":
            doc = json.loads(out)
            rate = doc["bytes_per_second"]
            flagged = doc["self_checks"]["cpu_bound"]
        elif self.kind == "iperf3":
            rate = json.loads(out)["end"]["sum_received"]["bits_per_second"] / 8
        else:
            if server_rc != 0:
                raise RuntimeError("neper server failed: " + server.stderr())
            fields = dict(line.split("=", 1) for line in server.stdout().splitlines() if "=" in line)
            rate = float(fields["local_throughput"]) / 8  # bits/s, counted by the receiving server
        cpu = client.cpu + server.cpu
        return dict(rate=rate, cpu=cpu, wire=wire, cpu_per_gb=cpu / (wire / 1e9) if wire else float("nan"),
                    flagged=flagged, client_cpu=client.cpu, server_cpu=server.cpu, others=others,
                    server_cmd=server_cmd, client_cmd=client_cmd)


def build_tools(args):
    """The tools to run, and the cells: (name, probe tool, reference tool)."""
    tools, cells = {}, []

    def probe(mode, block):
        key = "probe %s %s" % (mode, block)
        if key not in tools:
            tools[key] = Tool("probe", "fabric_probe %s %s" % (mode, block), mode,
                              ["--mode", mode, "--block", block], block)
        return key

    for name in args.cells:
        family, mode, block, kind, flags = CELLS[name]
        if kind == "neper" and not args.neper:
            continue
        ref_label = ("iperf3 " + " ".join(flags)).strip() if kind == "iperf3" else "neper tcp_stream"
        if kind == "iperf3" and not flags:
            ref_label += " (copy)"
        key = "%s %s" % (kind, " ".join(flags))
        tools.setdefault(key, Tool(kind, ref_label, family, flags))
        cells.append((name, probe(mode, block), key))
    for mode in args.sweep:
        for block in args.sweep_blocks:
            probe(mode, block)
    if args.rung:
        tools["rung"] = Tool("rung", "scheduled rung (calibrated)", "rung", [])
    return tools, cells


def bench_path(path, tools, args, rows):
    names = list(tools)
    for streams in args.streams:
        for run in range(args.runs):
            # Rotate who goes first, and reverse every other run (--reverse: the other way
            # round, so a second invocation starts each cell with the other tool).
            order = names[run % len(names):] + names[:run % len(names)]
            if run % 2 != args.reverse:
                order.reverse()
            for key in order:
                load = load_average()
                try:
                    r = tools[key].run(path, streams, args)
                    if not r["rate"] > 0:
                        raise RuntimeError("finished without error and reported no throughput")
                except RuntimeError as e:
                    # One failed run is a result too: said, kept in the JSON, left out of the
                    # medians and counted beside them; the other runs go on.
                    rows.append(dict(path=path["name"], streams=streams, tool=key, run=run + 1,
                                     load=load, failed=str(e)))
                    print("%-8s %2d streams run %d %-26s FAILED: %s" % (
                        path["name"], streams, run + 1, tools[key].label, e), flush=True)
                    continue
                r.update(path=path["name"], streams=streams, tool=key, run=run + 1, load=load)
                rows.append(r)
                print("%-8s %2d streams run %d %-26s %7.2f Gbit/s  cpu %6.2f s  %.3f cpu-s/GB  "
                      "others %3.0f%%  load %s%s%s" % (
                          path["name"], streams, run + 1, tools[key].label, r["rate"] * 8e-9, r["cpu"],
                          r["cpu_per_gb"], 100 * r["others"], load,
                          "  (probe flagged cpu_bound)" if r["flagged"] else "",
                          "  [%s]" % r["detail"] if r.get("detail") else ""), flush=True)


def medians(rows, path, streams, key):
    sel = [r for r in rows if r["path"] == path and r["streams"] == streams and r["tool"] == key]
    if not sel:
        return None
    return (statistics.median(r["rate"] for r in sel), statistics.median(r["cpu_per_gb"] for r in sel),
            min(float(r["load"].split()[0]) for r in sel), max(float(r["load"].split()[0]) for r in sel),
            max(r["others"] for r in sel))


def run_pairs(rows, path, streams, pkey, rkey):
    """Per-run throughput ratios, probe over reference, of the runs where both ran: the two
    ran back to back in every run, so a pair shares the machine's state of the moment."""
    def by_run(key):
        return {r["run"]: r["rate"] for r in rows if r["path"] == path and r["streams"] == streams
                and r["tool"] == key}
    p, r = by_run(pkey), by_run(rkey)
    return [p[n] / r[n] for n in sorted(p) if n in r and r[n] > 0]


def report(rows, tools, cells, args, paths):
    failed = [r for r in rows if r.get("failed")]
    rows = [r for r in rows if not r.get("failed")]  # every figure below is of runs that measured
    print("\n## Cells (medians of %d runs of %d s after %d s warm-up; CPU/GB ratio < 1: fabric_probe "
          "used less CPU per byte; load: 1-minute load average before the runs, the benchmark's own "
          "threads included; others: the most CPU the rest of the machine took during one of the "
          "cell's runs; run pairs: how many runs' own ratios were at or above 1.0x, and their "
          "range)\n" % (args.runs, args.duration, args.warmup))
    print("| path | streams | cell | fabric_probe | Gbit/s | reference | Gbit/s | throughput ratio | "
          "probe CPU-s/GB | ref CPU-s/GB | CPU/GB ratio | load | others | run pairs ≥ 1.0x |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for path in paths:
        for streams in args.streams:
            for name, pkey, rkey in cells:
                p, r = medians(rows, path, streams, pkey), medians(rows, path, streams, rkey)
                if not p or not r:
                    continue
                pairs = run_pairs(rows, path, streams, pkey, rkey)
                spread = " (%.2f-%.2fx)" % (min(pairs), max(pairs)) if pairs else ""
                print("| %s | %d | %s | %s | %.2f | %s | %.2f | %.2fx | %.3f | %.3f | %.2fx | %.1f-%.1f | "
                      "%.0f%% | %d/%d%s |" % (
                          path, streams, name, tools[pkey].label, p[0] * 8e-9, tools[rkey].label,
                          r[0] * 8e-9, p[0] / r[0], p[1], r[1], p[1] / r[1], min(p[2], r[2]),
                          max(p[3], r[3]), 100 * max(p[4], r[4]), sum(x >= 1.0 for x in pairs),
                          len(pairs), spread))
    if failed:
        print("\n%d failed run(s), left out of the medians above:" % len(failed))
        for r in failed:
            print("  %s %d streams run %d %s: %s" % (r["path"], r["streams"], r["run"],
                                                     tools[r["tool"]].label, r["failed"]))
    probes = [k for k in tools if tools[k].kind == "probe"]
    refs = [k for k in tools if tools[k].kind not in ("probe", "rung")]
    if "rung" in tools and refs:
        print("\n## The scheduled rung after calibration against the best reference figure on the path "
              "(send direction)\n")
        print("| path | streams | best reference | Gbit/s | rung Gbit/s | ratio | within 5% | modes chosen |")
        print("|---|---|---|---|---|---|---|---|")
        for path in paths:
            for streams in args.streams:
                ref = [(medians(rows, path, streams, k), k) for k in refs]
                ref = [(m, k) for m, k in ref if m]
                rung = medians(rows, path, streams, "rung")
                if not ref or not rung:
                    continue
                (best, *_), best_key = max(ref, key=lambda x: x[0][0])
                chosen = sorted({r["chosen"] for r in rows if r["tool"] == "rung" and r["path"] == path
                                 and r["streams"] == streams})
                print("| %s | %d | %s | %.2f | %.2f | %.2fx | %s | %s |" % (
                    path, streams, tools[best_key].label, best * 8e-9, rung[0] * 8e-9, rung[0] / best,
                    "yes" if rung[0] >= 0.95 * best else "no", ", ".join(chosen)))
    if not args.sweep or not refs:
        return
    print("\n## fabric_probe mode x block against the best reference figure on the path\n")
    print("| path | streams | best reference | Gbit/s | fabric_probe | Gbit/s | ratio | CPU-s/GB | within 5% |")
    print("|---|---|---|---|---|---|---|---|---|")
    for path in paths:
        for streams in args.streams:
            ref = [(medians(rows, path, streams, k), k) for k in refs]
            ref = [(m, k) for m, k in ref if m]
            if not ref:
                continue
            best, best_key = max(ref, key=lambda x: x[0][0])
            best = best[0]
            for k in probes:
                m = medians(rows, path, streams, k)
                if m:
                    print("| %s | %d | %s | %.2f | %s | %.2f | %.2fx | %.3f | %s |" % (
                        path, streams, tools[best_key].label, best * 8e-9, tools[k].label, m[0] * 8e-9,
                        m[0] / best, m[1], "yes" if m[0] >= 0.95 * best else "no"))


def ahead(ratio, cpu_ratio):
    """Which tool a run's cell favours: throughput at or above 1.0x with CPU per byte at or
    below 1.0x is fabric_probe's, both the other way the reference's, else split."""
    if ratio >= 1.0 and cpu_ratio <= 1.0:
        return "fabric_probe"
    if ratio < 1.0 and cpu_ratio > 1.0:
        return "reference"
    return "split"


def report_independent(runs, tools, cells, args, paths):
    """The cells of two (or more) independent invocations side by side: each invocation's
    median ratios, and a flag where they disagree on which tool is ahead."""
    print("\n## Cells over %d independent runs (each its own invocation of %d runs; the second "
          "with the order reversed). Ahead: fabric_probe when throughput ≥ 1.0x and CPU/GB ≤ "
          "1.0x, reference when both the other way, else split; DISAGREE where the runs name "
          "different tools\n" % (len(runs), args.runs))
    heads = " | ".join("run %d throughput | run %d CPU/GB" % (i + 1, i + 1) for i in range(len(runs)))
    print("| path | streams | cell | fabric_probe | reference | %s | ahead |" % heads)
    print("|---|---|---|---|---|%s---|" % ("---|---|" * len(runs)))
    disagree = 0
    for path in paths:
        for streams in args.streams:
            for name, pkey, rkey in cells:
                figures, verdicts = [], []
                for rows in runs:
                    rows = [r for r in rows if not r.get("failed")]
                    p, r = medians(rows, path, streams, pkey), medians(rows, path, streams, rkey)
                    if not p or not r:
                        break
                    figures.append("%.2fx | %.2fx" % (p[0] / r[0], p[1] / r[1]))
                    verdicts.append(ahead(p[0] / r[0], p[1] / r[1]))
                if len(figures) != len(runs):
                    continue
                verdict = verdicts[0] if len(set(verdicts)) == 1 else "DISAGREE (%s)" % ", ".join(verdicts)
                disagree += len(set(verdicts)) > 1
                print("| %s | %d | %s | %s | %s | %s | %s |" % (
                    path, streams, name, tools[pkey].label, tools[rkey].label, " | ".join(figures),
                    verdict))
    print("\n%d cell(s) where the runs disagree." % disagree)


def run_independently(argv, n):
    """Runs this script `n` times as separate processes (every second one with --reverse),
    each writing its rows to a JSON file; returns the rows of each."""
    runs = []
    with tempfile.TemporaryDirectory(prefix="fabric-bench-") as tmp:
        for i in range(n):
            out = os.path.join(tmp, "run%d.json" % (i + 1))
            cmd = [sys.executable, os.path.abspath(__file__), *argv, "--json", out]
            if i % 2:
                cmd.append("--reverse")
            print("\n# Independent run %d of %d: %s" % (i + 1, n, shlex.join(cmd)), flush=True)
            subprocess.run(cmd, check=True)
            with open(out) as f:
                runs.append(json.load(f))
    return runs


def raise_priority(nice):
    """Runs this script and its children at `nice` against the rest of the
    machine. With autogroup scheduling (kernel.sched_autogroup_enabled) a nice
    value only ranks tasks within their session's group, so the script moves to
    a session of its own and sets that group's nice as well."""
    os.setpriority(os.PRIO_PROCESS, 0, nice)
    if not os.path.exists("/proc/self/autogroup"):
        return
    if os.getpid() == os.getpgrp():  # a group leader cannot start a session: go on in a child
        pid = os.fork()
        if pid:
            _, status = os.waitpid(pid, 0)
            sys.exit(os.waitstatus_to_exitcode(status))
    os.setsid()
    with open("/proc/self/autogroup", "w") as f:
        f.write(str(nice))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iperf3", default="iperf3", help="iperf3 binary (default: iperf3 on PATH)")
    ap.add_argument("--neper", default="", help="neper tcp_stream binary; neper cells need it")
    ap.add_argument("--neper-threads", choices=("flows", "cpus"), default="flows",
                    help="neper -T: one thread per flow (as fabric_probe and iperf3 >= 3.16) or "
                         "one per CPU")
    ap.add_argument("--probe", default=PROBE)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--duration", type=int, default=4, help="seconds measured per run")
    ap.add_argument("--warmup", type=int, default=1, help="seconds of warm-up before the window")
    ap.add_argument("--paths", default="loopback,veth")
    ap.add_argument("--streams", default="1,8,32")
    ap.add_argument("--cells", default=",".join(CELLS), help="of: " + ", ".join(CELLS))
    ap.add_argument("--sweep", default="", help="fabric_probe modes to sweep over --sweep-blocks")
    ap.add_argument("--sweep-blocks", default="64K,128K,256K,512K,1M,2M,4M")
    ap.add_argument("--probe-args", default="--no-pin",
                    help="extra fabric_probe tcp flags; the default matches iperf3's and neper's "
                         "unpinned thread placement")
    ap.add_argument("--nice", type=int, default=0,
                    help="run the benchmark (every server and client) at this nice value, in a "
                         "session of its own so that it also applies across autogroups: e.g. -20 "
                         "on a machine shared with builds")
    ap.add_argument("--client-cpus", default="",
                    help="run every client on these CPUs (taskset -c), e.g. 0; default: anywhere")
    ap.add_argument("--server-cpus", default="", help="the same for every server, e.g. 1")
    ap.add_argument("--json", default="", help="write every run's figures here")
    ap.add_argument("--rung", action="store_true",
                    help="also run the scheduled TCP rung as the exporter does (fabric_probe ladder: "
                         "calibration, then the fastest mode and block) and compare its send figure "
                         "with the best reference on the path")
    ap.add_argument("--reverse", action="store_true",
                    help="start the tool rotation the other way round (the second of two "
                         "independent runs)")
    ap.add_argument("--independent", type=int, default=0, metavar="N",
                    help="run the whole benchmark N times as separate invocations (every second "
                         "one --reverse) and report each cell per invocation, flagging cells whose "
                         "invocations disagree on which tool is ahead")
    ap.add_argument("--combine", nargs="+", default=[], metavar="JSON",
                    help="report the --json files of earlier invocations side by side (as "
                         "--independent does), running nothing")
    args = ap.parse_args()
    args.streams = [int(s) for s in args.streams.split(",")]
    args.cells = [c for c in args.cells.split(",") if c]
    for c in args.cells:
        if c not in CELLS:
            ap.error("unknown cell %s" % c)
    args.sweep = [m for m in args.sweep.split(",") if m]
    args.sweep_blocks = [b for b in args.sweep_blocks.split(",") if b]
    args.probe_args = args.probe_args.split()
    paths = args.paths.split(",")
    if args.combine or args.independent:
        if args.independent:
            if args.json:
                ap.error("--independent writes one JSON file per invocation itself")
            argv, skip = [], False
            for a in sys.argv[1:]:
                if skip or a == "--reverse" or a.startswith("--independent="):
                    skip = False
                    continue
                if a == "--independent":
                    skip = True
                    continue
                argv.append(a)
            runs = run_independently(argv, args.independent)
        else:
            runs = []
            for path in args.combine:
                with open(path) as f:
                    runs.append(json.load(f))
        tools, cells = build_tools(args)
        report_independent(runs, tools, cells, args, paths)
        return
    require_executables(ap, [("--probe", args.probe), ("--iperf3", args.iperf3),
                             ("--neper", args.neper)])
    if os.geteuid() != 0:
        sys.exit("needs root: both paths run in network namespaces")
    if args.nice:
        raise_priority(args.nice)
    tools, cells = build_tools(args)
    if not tools:
        sys.exit("nothing to run")
    ver = subprocess.run([args.iperf3, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    neper = "neper %s" % args.neper if args.neper else "no neper (cells skipped)"
    print("fabric_probe %s (extra flags: %s) vs %s and %s; %d CPUs; nice %d; load average %s" % (
        args.probe, " ".join(args.probe_args) or "none", ver, neper, os.cpu_count(), args.nice,
        load_average()))
    rows = []
    with Secrets() as secrets:
        args.secret = secrets.good
        if "loopback" in paths:
            subprocess.run(["ip", "netns", "add", LOOP_NS], check=True)
            try:
                subprocess.run(["ip", "-n", LOOP_NS, "link", "set", "lo", "up"], check=True)
                bench_path(dict(name="loopback", server_ns=LOOP_NS, client_ns=LOOP_NS, server_ip="127.0.0.1",
                                allow="127.0.0.0/8", dev="lo"), tools, args, rows)
            finally:
                subprocess.run(["ip", "netns", "del", LOOP_NS])
        if "veth" in paths:
            if netns.can_run():
                print("veth skipped: " + netns.can_run())
            else:
                with netns.VethPair():
                    bench_path(dict(name="veth", server_ns=netns.SERVER_NS, client_ns=netns.CLIENT_NS,
                                    server_ip=netns.SERVER_IP, allow=netns.CLIENT_IP + "/32",
                                    dev=netns.SERVER_DEV), tools, args, rows)
    report(rows, tools, cells, args, paths)
    print("\nCommands (per run; loopback in namespace %s, veth between %s and %s):" % (
        LOOP_NS, netns.SERVER_NS, netns.CLIENT_NS))
    seen = set()
    for r in rows:
        if r["tool"] in seen or r.get("failed"):
            continue
        seen.add(r["tool"])
        print("  server: %s\n  client: %s" % (shlex.join(r["server_cmd"]), shlex.join(r["client_cmd"])))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
