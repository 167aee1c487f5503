#!/usr/bin/env python3
"""The flows collector against real TCP flows (tests/README.md, layer 6).

Two network namespaces joined by two veth pairs (MTU 9000): fl9a holds the
senders and the real fabric_exporter, fl9b the receivers. fl9a1 -> fl9b1 is
shaped to 1 Gbit/s with tc TBF; fl9a0 -> fl9b0 is not. The flows:

  to 198.18.9.2:5001  receiver with SO_RCVBUF 4 KiB, reading slowly -> receiver_window
  to 198.18.9.6:5002  through the 1 Gbit/s TBF, writing flat out    -> network, ~125 MB/s
  to 198.18.9.2:5003  sender sleeping between writes                -> application
  to 198.18.9.2:22 and :873                                          -> ssh, rsync
  2,000 idle connections to 198.18.9.2:5009                         -> no extra series

The exporter is scraped twice (goodput needs two dumps) and the second
scrape is checked. Then, one after the other:

  to 198.18.9.2:5011  one connection per 8 MiB "file", each open for one
                      dump only                                     -> every byte counted
  to 198.18.9.2:5010  dd | socat (a real userspace copy pipeline)   -> application socat

Needs root (and socat); exits 77 (ctest skip) otherwise.
"""
import fcntl
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import termios
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

NS_SEND, NS_RECV = "fl9a", "fl9b"
PEER = os.path.join(HERE, "flow_peer.py")
SHAPED_RATE_BYTES = 1e9 / 8
SKIP = 77
FILE_BYTES = 8 << 20
FILES = 5


def sh(*cmd, check=True):
    return subprocess.run(cmd, check=check, capture_output=True, text=True)


def setup():
    teardown()
    sh("ip", "netns", "add", NS_SEND)
    sh("ip", "netns", "add", NS_RECV)
    for ns in (NS_SEND, NS_RECV):
        sh("ip", "-n", ns, "link", "set", "lo", "up")
    for i, (a, b) in enumerate([("198.18.9.1", "198.18.9.2"), ("198.18.9.5", "198.18.9.6")]):
        sh("ip", "link", "add", f"fl9a{i}", "netns", NS_SEND, "mtu", "9000", "type", "veth",
           "peer", "name", f"fl9b{i}", "netns", NS_RECV, "mtu", "9000")
        sh("ip", "-n", NS_SEND, "addr", "add", a + "/30", "dev", f"fl9a{i}")
        sh("ip", "-n", NS_RECV, "addr", "add", b + "/30", "dev", f"fl9b{i}")
        sh("ip", "-n", NS_SEND, "link", "set", f"fl9a{i}", "up")
        sh("ip", "-n", NS_RECV, "link", "set", f"fl9b{i}", "up")
    sh("ip", "netns", "exec", NS_SEND, "tc", "qdisc", "add", "dev", "fl9a1", "root", "tbf",
       "rate", "1gbit", "burst", "512kb", "latency", "20ms")


def teardown():
    for ns in (NS_SEND, NS_RECV):
        sh("ip", "netns", "del", ns, check=False)


def start(ns, *args):
    proc = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, PEER, *args],
                            stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if line.strip() != "ready":
        proc.kill()
        raise RuntimeError(f"flow_peer {args[0]} did not start")
    return proc


def stop(procs):
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def outside():
    if os.geteuid() != 0:
        print("SKIP: needs root for network namespaces")
        return SKIP
    if subprocess.run(["ip", "netns", "list"], capture_output=True).returncode != 0:
        print("SKIP: ip netns unavailable")
        return SKIP
    if shutil.which("socat") is None:
        print("SKIP: socat is not installed (scripts/setup-deps --test)")
        return SKIP
    procs = []
    try:
        setup()
        procs.append(start(NS_RECV, "sink",
                           "--listen", "198.18.9.2:5001:4096:0.0005",
                           "--listen", "198.18.9.6:5002",
                           "--listen", "198.18.9.2:5003",
                           "--listen", "198.18.9.2:22",
                           "--listen", "198.18.9.2:873",
                           "--listen", "198.18.9.2:5009",
                           "--listen", "198.18.9.2:5010",
                           "--listen", "198.18.9.2:5011"))
        inner = subprocess.run(["ip", "netns", "exec", NS_SEND, sys.executable,
                                os.path.abspath(__file__), "--inside"])
        return inner.returncode
    finally:
        stop(procs)
        teardown()


def series(text, name):
    """{labels-string: value} for one metric name."""
    out = {}
    for line in text.splitlines():
        m = re.match(re.escape(name) + r"(\{[^}]*\})? (\S+)$", line)
        if m:
            out[m.group(1) or ""] = float(m.group(2))
    return out


def labels(text):
    return dict(re.findall(r'(\w+)="([^"]*)"', text))


def find(text, name, **want):
    """Values of `name` whose labels include `want`."""
    return [v for k, v in series(text, name).items()
            if all(labels(k).get(a) == b for a, b in want.items())]


def sample_count(text):
    return sum(1 for l in text.splitlines()
               if l and not l.startswith("#") and not l.startswith("exposer_"))


def unacked(sock):
    """Bytes of the socket's send queue the peer has not acknowledged (SIOCOUTQ)."""
    return struct.unpack("i", fcntl.ioctl(sock, termios.TIOCOUTQ, b"\0" * 4))[0]


def per_file_loop(exporter):
    """scp per file, made deterministic: one connection per file, each sending FILE_BYTES,
    waiting until all are acknowledged, then living through exactly one dump before it
    closes. Before the first byte counted, the first dump of a connection was only its
    baseline and none of these bytes were seen. Returns the scrape after the last."""
    time.sleep(1.1)
    exporter.metrics()  # The dump every connection below opened after.
    data = b"\0" * FILE_BYTES
    for _ in range(FILES):
        with socket.create_connection(("198.18.9.2", 5011)) as conn:
            conn.sendall(data)
            deadline = time.monotonic() + 30
            while unacked(conn) and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(1.1)  # Scrapes within 1 s of the last dump reuse it.
            exporter.metrics()
    time.sleep(1.1)
    return exporter.metrics()


def copy_pipeline(exporter):
    """dd | socat to the sink; two dumps while it runs. Returns the second scrape."""
    pipeline = subprocess.Popen(
        ["sh", "-c", "dd if=/dev/zero bs=64k 2>/dev/null | socat -u STDIN TCP:198.18.9.2:5010"],
        start_new_session=True)
    try:
        time.sleep(1.5)
        exporter.metrics()
        time.sleep(2)
        return exporter.metrics()
    finally:
        os.killpg(pipeline.pid, signal.SIGTERM)  # sh, dd and socat together
        pipeline.wait()


def inside():
    from fabric_testlib.exporter_process import Exporter
    failures = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what, flush=True)
        if not ok:
            failures.append(what)

    with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
        # Default local addresses (every non-loopback address: the veths);
        # two test applications exercise the extensible port table.
        f.write("collectors:\n  flows:\n    bulk_threshold_bytes_per_second: 200000\n"
                "    applications:\n      rwndtest: ['5001']\n      sleeper: ['5003']\n"
                "      shaped: ['5002']\n      loop: ['5011']\n")
        config = f.name
    procs = []
    try:
        with Exporter("--config.file=" + config, "--no-collector.softnet") as exporter:
            empty = exporter.metrics()
            procs.append(start(NS_SEND, "idle", "--to", "198.18.9.2:5009", "--count", "2000"))
            time.sleep(1.1)  # Scrapes within 1 s of a dump reuse it.
            idle1 = exporter.metrics()
            time.sleep(1.1)
            idle2 = exporter.metrics()
            check(series(idle2, "fabric_flows_sockets").get("") == 2000,
                  f"2000 idle sockets counted: {series(idle2, 'fabric_flows_sockets')}")
            check(sample_count(idle1) == sample_count(empty) == sample_count(idle2),
                  f"2000 idle sockets add no series ({sample_count(empty)} -> "
                  f"{sample_count(idle1)}, {sample_count(idle2)})")
            check(not series(idle2, "fabric_flows_bulk_flows"), "idle sockets are not bulk")

            procs.append(start(NS_SEND, "send",
                               "--to", "198.18.9.2:5001:65536:0",
                               "--to", "198.18.9.6:5002:1048576:0",
                               "--to", "198.18.9.2:5003:65536:0.02",
                               "--to", "198.18.9.2:22:65536:0.02",
                               "--to", "198.18.9.2:873:65536:0.02"))
            time.sleep(1.5)  # Past slow start and the TBF's initial burst.
            exporter.metrics()
            time.sleep(3)
            got = exporter.metrics()
            # A scrape that starts within 1 s of the last dump is served its result. The
            # pair is timed: one that took a second or more (a stalled machine) proves
            # nothing either way and is taken again.
            reuse_pair = None
            for _ in range(5):
                time.sleep(1.1)  # the pair's first scrape dumps afresh
                started = time.monotonic()
                first, second = exporter.metrics(), exporter.metrics()
                if time.monotonic() - started < 1.0:
                    reuse_pair = (first, second)
                    break
            stop(procs)
            procs.clear()
            loop = per_file_loop(exporter)
            copy = copy_pipeline(exporter)
        print("\n".join(l for l in got.splitlines()
                        if l.startswith(("fabric_flows_bulk_flows", "fabric_flows_goodput",
                                         'fabric_scrape_collector_success{collector="flows"'))))

        def bulk(**want):
            return sum(find(got, "fabric_flows_bulk_flows", **want))

        check(bulk(application="rwndtest", limiter="receiver_window", peer="198.18.9.2") == 1,
              "tiny SO_RCVBUF receiver: receiver_window")
        check(bulk(application="shaped", limiter="network", peer="198.18.9.6") == 1,
              "TBF-shaped flow: network")
        check(bulk(application="sleeper", limiter="application", peer="198.18.9.2") == 1,
              "sender sleeping between writes: application")
        check(bulk(application="ssh", peer="198.18.9.2") == 1, "port 22: ssh")
        check(bulk(application="rsync", peer="198.18.9.2") == 1, "port 873: rsync")
        goodput = find(got, "fabric_flows_goodput_bytes_per_second", application="shaped")
        check(len(goodput) == 1 and abs(goodput[0] / SHAPED_RATE_BYTES - 1) < 0.05,
              f"1 Gbit/s TBF flow goodput {goodput} within 5% of {SHAPED_RATE_BYTES:.0f} B/s")
        check(bulk() == 5, f"exactly the five bulk flows, got {bulk()}")
        if reuse_pair is None:
            check(False, "a scrape within 1 s of the last reuses its result: no two scrapes "
                         "within 1 s of each other in 5 tries")
        else:
            first, second = (series(m, "fabric_flows_goodput_bytes_per_second")
                             for m in reuse_pair)
            check(first and second == first,
                  f"a scrape within 1 s of the last reuses its result: {first} then {second}")
        transferred = find(got, "fabric_flows_transferred_bytes_total", application="shaped",
                           direction="send")
        check(len(transferred) == 1 and transferred[0] > 0.9 * 3 * SHAPED_RATE_BYTES,
              f"transferred bytes counted for the shaped flow: {transferred}")
        # Each connection of the loop was seen in one dump only: counted from its first byte
        # (the SYN and FIN may add one each), one series across all of them.
        looped = find(loop, "fabric_flows_transferred_bytes_total", application="loop",
                      direction="send", peer="198.18.9.2")
        check(len(looped) == 1 and 0 <= looped[0] - FILES * FILE_BYTES <= 2 * FILES,
              f"a per-file loop of {FILES} connections counted whole in one series: {looped} "
              f"for {FILES * FILE_BYTES} bytes sent")
        check(sum(find(copy, "fabric_flows_bulk_flows", application="socat",
                       peer="198.18.9.2")) == 1,
              "dd | socat: named socat by the process holding the socket")
        check(not find(copy, "fabric_flows_bulk_flows", application="other"),
              "dd | socat: no flow left unnamed")
        seconds = find(copy, "fabric_flows_limited_seconds_total", application="socat")
        check(seconds and sum(seconds) > 0, f"dd | socat: time in limiters counted: {seconds}")
    finally:
        stop(procs)
        os.unlink(config)
    print("PASS" if not failures else f"{len(failures)} check(s) failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(inside() if "--inside" in sys.argv else outside())
