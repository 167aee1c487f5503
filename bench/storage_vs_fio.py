#!/usr/bin/env python3
"""fabric_probe storage vs fio 3.x, side by side on the same file.

For each mode, runs the probe and fio RUNS times each on the same file, block
size, depth, size and window, in alternating order (probe first in odd runs,
fio first in even ones), then prints the median throughput of each, the median
of the per-pair ratios (target >= 1.0) and CPU seconds per GB moved.
Alternation spreads a noisy disk's drift over both tools.

Throughput is each tool's own figure over its window. CPU is counted the same
way for both: user + system time of the tool's process and everything it
waited for (fio's job processes) over its whole life, from getrusage
(RUSAGE_CHILDREN), over the bytes the block device holding PATH moved in that
life (/sys/dev/block/MAJ:MIN/stat: warm-up, layout and journal I/O included,
for both alike). Where PATH is on no block device with a stat file, it falls
back to each tool's own CPU figure, and says so.

  bench/storage_vs_fio.py --path /data/bench [--runs 5] [--duration 3]
                          [--size 1G] [--modes read,write,randread]
                          [--probe-arg=--engine=psync ...]

Needs fio with the io_uring engine. Files it creates: PATH/fio.read (removed at
the end) and the probe's own, which the probe removes.
"""

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# bench/ runs by hand, often under sudo (which drops PYTHONPATH): find tests/lib itself.
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "lib"))
from fabric_testlib.probe_process import PROBE, require_executables  # noqa: E402

MODES = {
    # mode: (block size, depth, fio rw)
    "read": ("1M", 32, "read"),
    "write": ("1M", 32, "write"),
    "randread": ("4k", 32, "randread"),
    "randwrite": ("4k", 32, "randwrite"),
}


def device_stat_file(path):
    """The stat file of the block device holding path, or None (tmpfs, overlay...)."""
    dev = os.stat(path).st_dev
    stat = f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}/stat"
    return stat if os.path.exists(stat) else None


def sectors_moved(stat):
    fields = open(stat).read().split()
    return int(fields[2]) + int(fields[6])  # sectors read + sectors written, 512 bytes each


class Measured:
    """Runs one tool to its end: its stdout, and its CPU over its whole life
    (itself and every process it waited for) with the bytes the device moved
    meanwhile."""

    def __init__(self, cmd, stat):
        before_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        before_sectors = sectors_moved(stat) if stat else 0
        self.stdout = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        after_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.cpu_seconds = (after_cpu.ru_utime - before_cpu.ru_utime +
                            after_cpu.ru_stime - before_cpu.ru_stime)
        self.device_bytes = (sectors_moved(stat) - before_sectors) * 512 if stat else 0

    def cpu_per_gb(self, own_cpu_seconds, own_bytes):
        """CPU-s per GB the device moved; the tool's own figures without a device."""
        if self.device_bytes > 0:
            return self.cpu_seconds / (self.device_bytes / 1e9)
        return own_cpu_seconds / (own_bytes / 1e9)


def run_probe(args, mode, path):
    bs, depth, _ = MODES[mode]
    cmd = [args.probe, "storage", "--json", "--path", path, f"--mode={mode}",
           f"--block-size={bs}", f"--queue-depth={depth}", f"--duration={args.duration}s",
           f"--warmup={args.warmup}s", f"--reserve={args.reserve}", "--no-calibrate"]
    cmd += args.probe_arg
    if mode in ("read", "randread"):
        cmd += ["--file", "fio.read"]
    else:
        cmd += [f"--size={args.size}"]
    run = Measured(cmd, args.device_stat)
    r = json.loads(run.stdout)
    return r["bytes_per_second"], run.cpu_per_gb(r["cpu_seconds"], r["bytes"])


def run_fio(args, mode, path):
    bs, depth, rw = MODES[mode]
    name = "fio.read" if mode in ("read", "randread") else "fio.write"
    cmd = ["fio", "--name=bench", f"--filename={os.path.join(path, name)}", f"--rw={rw}",
           f"--bs={bs}", f"--iodepth={depth}", "--ioengine=io_uring", "--direct=1",
           "--fixedbufs",  # The probe's buffers are registered too (READ/WRITE_FIXED).
           f"--size={args.size}", f"--runtime={args.duration}", f"--ramp_time={args.warmup}",
           "--time_based", "--norandommap", "--randrepeat=0", "--output-format=json"]
    if rw in ("write", "randwrite"):
        cmd.append("--end_fsync=1")
    run = Measured(cmd, args.device_stat)
    out = run.stdout
    job = json.loads(out[out.index("{"):])["jobs"][0]
    side = job["read"] if rw in ("read", "randread") else job["write"]
    if name == "fio.write":
        os.unlink(os.path.join(path, name))
    runtime_s = side["runtime"] / 1e3
    cpu_s = (job["usr_cpu"] + job["sys_cpu"]) / 100 * runtime_s
    return side["bw_bytes"], run.cpu_per_gb(cpu_s, side["io_bytes"])


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--path", required=True)
    ap.add_argument("--probe", default=PROBE)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--duration", type=float, default=3)
    ap.add_argument("--warmup", type=float, default=0.5)
    ap.add_argument("--size", default="256M")
    ap.add_argument("--reserve", default="1G")
    ap.add_argument("--modes", default="read,write,randread")
    ap.add_argument("--probe-arg", action="append", default=[],
                    help="extra fabric_probe storage flag, e.g. --probe-arg=--engine=psync "
                    "(repeatable)")
    args = ap.parse_args()
    require_executables(ap, [("--probe", args.probe)])
    if not os.path.isdir(args.path):
        ap.error(f"--path {args.path}: no such directory")
    if not shutil.which("fio"):
        ap.error("fio is not installed (scripts/setup-deps --test installs it)")
    modes = args.modes.split(",")
    version = subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout.strip()
    args.device_stat = device_stat_file(args.path)
    cpu_basis = (f"CPU over each tool's life per byte {args.device_stat} counted"
                 if args.device_stat else
                 "no block device stat for the path: CPU per byte is each tool's own figure")
    print(f"{version} vs {args.probe}; path {args.path}; {args.runs} alternating runs of "
          f"{args.duration} s (+{args.warmup} s warm-up); size {args.size}; {cpu_basis}; "
          f"load average {' '.join(open('/proc/loadavg').read().split()[:3])}")
    read_file = os.path.join(args.path, "fio.read")
    if any(m in ("read", "randread") for m in modes):
        subprocess.run(["fio", "--name=layout", f"--filename={read_file}", "--rw=write",
                        "--bs=1M", "--iodepth=16", "--ioengine=io_uring", "--direct=1",
                        f"--size={args.size}", "--end_fsync=1"],
                       capture_output=True, check=True)
    rows = []
    try:
        for mode in modes:
            ours, theirs, ratios, our_cpu, fio_cpu = [], [], [], [], []
            for run in range(args.runs):
                if run % 2 == 0:
                    bw, cpu = run_probe(args, mode, args.path)
                    fbw, fcpu = run_fio(args, mode, args.path)
                else:
                    fbw, fcpu = run_fio(args, mode, args.path)
                    bw, cpu = run_probe(args, mode, args.path)
                ours.append(bw)
                theirs.append(fbw)
                ratios.append(bw / fbw)
                our_cpu.append(cpu)
                fio_cpu.append(fcpu)
                load = open("/proc/loadavg").read().split()[0]
                print(f"  {mode:9s} probe {bw / 1e6:9.1f} MB/s  fio {fbw / 1e6:9.1f} MB/s  "
                      f"ratio {bw / fbw:.3f}  CPU s/GB {cpu:.4f} / {fcpu:.4f}  load {load}",
                      flush=True)
            ahead = sum(1 for r in ratios if r >= 1.0)
            pairs = f"{ahead}/{len(ratios)} ({min(ratios):.2f}-{max(ratios):.2f}x)"
            rows.append((mode, MODES[mode][0], MODES[mode][1], statistics.median(ours),
                         statistics.median(theirs), statistics.median(ratios),
                         statistics.median(our_cpu), statistics.median(fio_cpu), pairs))
    finally:
        if os.path.exists(read_file):
            os.unlink(read_file)
    print()
    print("| mode | bs | depth | probe MB/s | fio MB/s | probe/fio (median of pairs) | "
          "probe CPU s/GB | fio CPU s/GB | CPU/GB ratio | pairs >= 1.0x |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for mode, bs, depth, o, t, ratio, oc, fc, pairs in rows:
        print(f"| {mode} | {bs} | {depth} | {o / 1e6:.0f} | {t / 1e6:.0f} | {ratio:.3f} | "
              f"{oc:.4f} | {fc:.4f} | {oc / fc:.2f}x | {pairs} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
