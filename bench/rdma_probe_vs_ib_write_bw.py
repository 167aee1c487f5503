#!/usr/bin/env python3
"""fabric_probe rdma against perftest's ib_write_bw side by side, on one host
with an RDMA port (the adapter loops the traffic back) or across two hosts.
Same QPs, message size, TX depth and duration for both; ib_write_bw connects
through rdma_cm (-R) like the probe. Alternates which tool goes first, a few
runs each, and prints per-run Gbit/s and the median ratio probe / ib_write_bw.

One host (server sides started here, on the first active RoCE port's IPv4):
    bench/rdma_probe_vs_ib_write_bw.py [--runs 3] [--duration 10] [--qps 4] [--size 65536]
Two hosts: start `fabric_probe serve --listen IP --allow ... --secret-file F` and
`ib_write_bw -d DEV -R -q Q -s S -t T -D D --report_gbits -F` (again before every
run) on the peer yourself, then pass --peer IP --secret-file F --no-local-servers.
Needs perftest (Debian package `perftest`) and a build with FABRIC_WITH_VERBS=ON.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROBE = os.environ.get("FABRIC_PROBE", os.path.join(ROOT, "build", "bin", "fabric_probe"))
# bench/ runs by hand, often under sudo (which drops PYTHONPATH): find tests/lib itself.
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
from fabric_testlib.rdma_devices import first_active_port, ipv4_of  # noqa: E402

PROBE_PORT, PERF_PORT = 19878, 18515


def ib_write_bw_args(a, dev):
    return ["ib_write_bw", "-d", dev, "-R", "-q", str(a.qps), "-s", str(a.size), "-t",
            str(a.tx_depth), "-D", str(a.duration), "--report_gbits", "-F", "-p", str(PERF_PORT)]


def parse_ib_write_bw(out):
    # The result line: "#bytes #iterations BW peak BW average MsgRate"; take BW average.
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 5 and f[0].isdigit() and f[1].isdigit():
            return float(f[3])
    raise RuntimeError("no result line in ib_write_bw output:\n" + out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--duration", type=int, default=10)
    ap.add_argument("--qps", type=int, default=4)
    ap.add_argument("--size", type=int, default=65536)
    ap.add_argument("--tx-depth", type=int, default=128)
    ap.add_argument("--peer")
    ap.add_argument("--secret-file")
    ap.add_argument("--no-local-servers", action="store_true")
    a = ap.parse_args()
    if not shutil.which("ib_write_bw"):
        print("ib_write_bw not found (apt-get install perftest)")
        return 2
    found = first_active_port()
    if not found:
        print("no RDMA device with an active RoCE port on this host")
        return 2
    dev, _, netdev = found
    ip = a.peer or ipv4_of(netdev)
    tmp = tempfile.mkdtemp()
    secret = a.secret_file or os.path.join(tmp, "secret")
    if not a.secret_file:
        with open(secret, "w") as f:
            f.write("rdma-bench-secret-0123456789\n")
        os.chmod(secret, 0o600)
    serve = None
    if not a.no_local_servers:
        serve = subprocess.Popen([PROBE, "serve", "--listen", "%s:%d" % (ip, PROBE_PORT), "--allow",
                                  ip + "/32", "--secret-file", secret, "--max-duration", "120s"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
    rows = []
    try:
        for run in range(a.runs):
            order = ["probe", "perf"] if run % 2 == 0 else ["perf", "probe"]
            got = {}
            for tool in order:
                if tool == "probe":
                    p = subprocess.run([PROBE, "rdma", "--peer", "%s:%d" % (ip, PROBE_PORT),
                                        "--secret-file", secret, "--qps", str(a.qps), "--size",
                                        str(a.size), "--tx-depth", str(a.tx_depth), "--duration",
                                        "%ds" % a.duration, "--warmup", "1s", "--json"],
                                       capture_output=True, text=True, timeout=a.duration + 60)
                    if p.returncode != 0:
                        raise RuntimeError("fabric_probe rdma: " + p.stderr)
                    got["probe"] = json.loads(p.stdout)["bytes_per_second"] * 8 / 1e9
                else:
                    server = None
                    if not a.no_local_servers:
                        server = subprocess.Popen(ib_write_bw_args(a, dev), stdout=subprocess.PIPE,
                                                  stderr=subprocess.STDOUT, text=True)
                        time.sleep(1)
                    p = subprocess.run(ib_write_bw_args(a, dev) + [ip], capture_output=True,
                                       text=True, timeout=a.duration + 60)
                    if server:
                        server.wait(timeout=30)
                    got["perf"] = parse_ib_write_bw(p.stdout)
            rows.append(got)
            print("run %d: fabric_probe %.2f Gbit/s  ib_write_bw %.2f Gbit/s  ratio %.3f" %
                  (run + 1, got["probe"], got["perf"], got["probe"] / got["perf"]))
    finally:
        if serve:
            serve.terminate()
            serve.wait(timeout=10)
    ratio = statistics.median(r["probe"] / r["perf"] for r in rows)
    print("\n| tool | median Gbit/s |\n| --- | --- |")
    print("| fabric_probe rdma | %.2f |" % statistics.median(r["probe"] for r in rows))
    print("| ib_write_bw -R | %.2f |" % statistics.median(r["perf"] for r in rows))
    print("median ratio fabric_probe / ib_write_bw: %.3f (qps %d, size %d, tx-depth %d, %d s)" %
          (ratio, a.qps, a.size, a.tx_depth, a.duration))
    return 0


if __name__ == "__main__":
    sys.exit(main())
