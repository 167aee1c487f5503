#!/usr/bin/env python3
"""Scrape cost of fabric_exporter vs Debian's prometheus-node-exporter (1.5)
over one large synthetic host (tests/tools/make_large_fixture.py: 128 CPUs, 16
NICs with 400 driver statistics each, 256 PCI devices, 8 RoCE ports), both
running the collectors they have in common, side by side, scrapes interleaved.

What each side does per scrape (the same files, except where noted):

  fabric_exporter  --collector.disable-defaults --collector.{netdev,softnet,
                   tcp,rdma,sockbuf} --collector.netdev.ethtool-source=none
    netdev   sysfs class/net/IF/{mtu,speed,carrier,...,statistics/*}
    softnet  /proc/net/softnet_stat        tcp  /proc/net/{snmp,netstat}
    rdma     class/infiniband/*/ports/*/{counters,hw_counters}/*
    sockbuf  18 sysctls under /proc/sys/net/{core,ipv4}
  node_exporter  --collector.disable-defaults --collector.{netdev,netclass,
                 softnet,netstat,infiniband,sysctl} --no-collector.netdev.netlink
                 --web.disable-exporter-metrics
    netdev   /proc/net/dev (netlink off: it would read this machine's kernel)
    netclass sysfs class/net/IF/* attributes
    softnet  /proc/net/softnet_stat        netstat /proc/net/{netstat,snmp,snmp6}
    infiniband class/infiniband/*/ports/*/counters/* (1.5 has no hw_counters)
    sysctl   the same 18 sysctls (--collector.sysctl.include[-info])

node_exporter cannot read driver statistics from a fixture tree (its ethtool
collector uses ioctls), so the headline row leaves them out too (the issue's
comparison is of the collectors both have). A second fabric_exporter row,
"+ driver statistics", adds what only it does: the recorded ethtool
-i/-S/-a/-l/-g text of each NIC (6,400 driver statistics parsed from text and
typed into fabric_netdev_* series). The pcie collector has no node_exporter 1.5
counterpart; `--with-pcie` adds a row with it on as well (no ratio).

Scrapes are HTTP/1.1 GETs on a fresh connection with Prometheus 2.42's
Accept and Accept-Encoding (gzip) headers (`--identity` asks for no
compression); latency is request to last byte. RSS is VmRSS and VmHWM from
/proc/PID/status after the run; CPU is the process's utime+stime over the
measured scrapes.

Usage: bench/scrape_vs_node_exporter.py [--scrapes 200] [--warmup 20]
           [--exporter build/bin/fabric_exporter] [--identity] [--with-pcie]
"""
import argparse
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
# The host generator is a tool with a command line; it prints the shape it wrote as JSON.
GENERATOR = os.path.join(SOURCE, "tests", "tools", "make_large_fixture.py")

PROMETHEUS_ACCEPT = ("application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
                     "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")
SYSCTLS = ["net.core.rmem_max", "net.core.wmem_max", "net.core.rmem_default",
           "net.core.wmem_default", "net.core.optmem_max", "net.core.netdev_max_backlog",
           "net.core.netdev_budget", "net.core.netdev_budget_usecs", "net.core.dev_weight",
           "net.ipv4.tcp_rmem:min,default,max", "net.ipv4.tcp_wmem:min,default,max",
           "net.ipv4.tcp_mem:low,pressure,high", "net.ipv4.tcp_window_scaling",
           "net.ipv4.tcp_moderate_rcvbuf", "net.ipv4.tcp_mtu_probing"]
SYSCTLS_INFO = ["net.ipv4.tcp_congestion_control", "net.core.default_qdisc"]
NODE_EXPORTER = "prometheus-node-exporter"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fabric_args(binary, tree, port, pcie, driver_stats):
    collectors = ["netdev", "softnet", "tcp", "rdma", "sockbuf"] + (["pcie"] if pcie else [])
    args = [binary, f"--web.listen-address=127.0.0.1:{port}", "--collector.disable-defaults",
            "--path.procfs=" + os.path.join(tree, "proc"),
            "--path.sysfs=" + os.path.join(tree, "sys"), "--log.level=warn"]
    if not driver_stats:
        args.append("--collector.netdev.ethtool-source=none")
    if pcie:
        args.append("--config.file=" + os.path.join(tree, "fabric_exporter.yml"))
    return args + ["--collector." + c for c in collectors]


def node_args(tree, port):
    args = [NODE_EXPORTER, f"--web.listen-address=127.0.0.1:{port}",
            "--path.procfs=" + os.path.join(tree, "proc"),
            "--path.sysfs=" + os.path.join(tree, "sys"), "--collector.disable-defaults",
            "--web.disable-exporter-metrics", "--no-collector.netdev.netlink", "--log.level=warn"]
    args += ["--collector." + c for c in
             ("netdev", "netclass", "softnet", "netstat", "infiniband", "sysctl")]
    args += ["--collector.sysctl.include=" + s for s in SYSCTLS]
    args += ["--collector.sysctl.include-info=" + s for s in SYSCTLS_INFO]
    return args


class Target:
    def __init__(self, name, args, port, gzip):
        self.name, self.args, self.port, self.gzip = name, args, port, gzip
        self.latencies, self.proc, self.body_bytes, self.series = [], None, 0, 0

    def start(self):
        self.proc = subprocess.Popen(self.args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"{self.name} exited: {self.proc.stderr.read().decode()}")
            try:
                self.scrape()
                return
            except OSError:
                time.sleep(0.1)
        raise SystemExit(f"{self.name} did not answer on port {self.port} within 15 s")

    def scrape(self):
        headers = {"Accept": PROMETHEUS_ACCEPT, "User-Agent": "Prometheus/2.42.0"}
        if self.gzip:
            headers["Accept-Encoding"] = "gzip"
        start = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request("GET", "/metrics", headers=headers)
            resp = conn.getresponse()
            body = resp.read()
        finally:
            conn.close()
        elapsed = time.perf_counter() - start
        if resp.status != 200:
            raise SystemExit(f"{self.name}: HTTP {resp.status}")
        self.body_bytes = len(body)
        return elapsed, body, resp.getheader("Content-Encoding")

    def status(self):
        out = {}
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    out[key] = int(value.split()[0])
        return out

    def cpu_seconds(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def count_series(self):
        import gzip
        _, body, encoding = self.scrape()
        text = (gzip.decompress(body) if encoding == "gzip" else body).decode()
        self.series = sum(1 for line in text.splitlines() if line and not line.startswith("#"))
        failed = [line for line in text.splitlines()
                  if "scrape_collector_success" in line and line.endswith(" 0")]
        if failed:
            raise SystemExit(f"{self.name}: a collector failed on the fixture: {failed}")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scrapes", type=int, default=200, help="measured scrapes per exporter")
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--exporter", default=os.path.join(SOURCE, "build", "bin", "fabric_exporter"))
    p.add_argument("--identity", action="store_true", help="ask for uncompressed responses")
    p.add_argument("--with-pcie", action="store_true",
                   help="also measure fabric_exporter with its pcie collector (no counterpart)")
    p.add_argument("--tmpdir", default="/dev/shm" if os.path.isdir("/dev/shm") else None,
                   help="where the tree is generated (default /dev/shm: tmpfs, in memory like "
                        "sysfs)")
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    if shutil.which(NODE_EXPORTER) is None:
        raise SystemExit("prometheus-node-exporter is not installed (apt-get install "
                         "prometheus-node-exporter; scripts/setup-deps does)")
    if not os.access(a.exporter, os.X_OK):
        raise SystemExit(f"{a.exporter}: not built (cmake --build build --target fabric_exporter)")
    got = subprocess.run([NODE_EXPORTER, "--version"], capture_output=True, text=True)
    version = (got.stdout + got.stderr).splitlines()[0]
    gzip = not a.identity
    with tempfile.TemporaryDirectory(prefix="fabric-bench-", dir=a.tmpdir) as tmp:
        tree = os.path.join(tmp, "host")
        shape = json.loads(subprocess.run([sys.executable, GENERATOR, tree], check=True,
                                          capture_output=True, text=True).stdout)
        ports = [free_port() for _ in range(4)]
        targets = [Target("fabric_exporter", fabric_args(a.exporter, tree, ports[0], False, False),
                          ports[0], gzip),
                   Target("node_exporter", node_args(tree, ports[1]), ports[1], gzip),
                   Target("fabric_exporter + driver statistics",
                          fabric_args(a.exporter, tree, ports[2], False, True), ports[2], gzip)]
        if a.with_pcie:
            targets.append(Target("fabric_exporter + driver statistics + pcie",
                                  fabric_args(a.exporter, tree, ports[3], True, True), ports[3],
                                  gzip))
        try:
            for t in targets:
                t.start()
                t.count_series()
            for _ in range(a.warmup):
                for t in targets:
                    t.scrape()
            cpu0 = [t.cpu_seconds() for t in targets]
            for i in range(a.scrapes):
                # Alternate the order so neither always runs on a cache the
                # other just warmed or right after the client's own work.
                order = targets if i % 2 == 0 else targets[::-1]
                for t in order:
                    t.latencies.append(t.scrape()[0])
            cpu = [t.cpu_seconds() - c for t, c in zip(targets, cpu0)]
            mem = [t.status() for t in targets]
        finally:
            for t in targets:
                t.stop()
    rows = []
    for t, c, m in zip(targets, cpu, mem):
        rows.append(dict(name=t.name, median_ms=statistics.median(t.latencies) * 1e3,
                         p90_ms=pct(t.latencies, 90) * 1e3, cpu_ms=c / a.scrapes * 1e3,
                         rss_kib=m["VmRSS"], hwm_kib=m["VmHWM"], series=t.series,
                         body_bytes=t.body_bytes))
    command = "bench/scrape_vs_node_exporter.py " + " ".join(sys.argv[1:])
    if a.json:
        print(json.dumps(dict(rows=rows, shape=shape, node_exporter=version,
                              command=command.strip()), indent=1))
        return
    ours, theirs = rows[0], rows[1]
    print(f"host: {shape['cpus']} CPUs, {shape['nics']} NICs x {shape['driver_stats_per_nic']} "
          f"driver statistics, {shape['pci_devices']} PCI devices, {shape['rdma_ports']} RDMA "
          f"ports; {a.scrapes} scrapes each, interleaved, after {a.warmup} warm-up; "
          f"{'gzip' if gzip else 'identity'}; {version}\n")
    print("| exporter | series | body bytes | scrape median ms | p90 ms | CPU ms/scrape | "
          "VmRSS MiB | VmHWM MiB |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['name']} | {r['series']} | {r['body_bytes']} | {r['median_ms']:.2f} | "
              f"{r['p90_ms']:.2f} | {r['cpu_ms']:.2f} | {r['rss_kib'] / 1024:.1f} | "
              f"{r['hwm_kib'] / 1024:.1f} |")
    for label, r in (("fabric / node", ours), ("fabric + driver statistics / node", rows[2])):
        ratio = lambda k: r[k] / theirs[k]  # noqa: E731
        print(f"| **ratio** {label} | | | **{ratio('median_ms'):.2f}×** | "
              f"{ratio('p90_ms'):.2f}× | {ratio('cpu_ms'):.2f}× | **{ratio('rss_kib'):.2f}×** | "
              f"{ratio('hwm_kib'):.2f}× |")
    print(f"\ncommand: {command.strip()}")


if __name__ == "__main__":
    main()
