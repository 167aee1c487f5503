#!/usr/bin/env python3
"""`fabric_probe ladder` names the application that moves the real transfers (issue 41).

Two network namespaces joined by a veth pair (MTU 9000, shaped to 3 Gbit/s each way): lt-b runs
`fabric_probe serve` and a real rsync daemon, lt-a the ladder. First, with a real rsync client in lt-a looping a sparse
file to the daemon at a fixed --bwlimit (a per-file protocol held far below the path, whatever
this host's CPU does), the ladder's real-transfers layer must name rsync with its rate and the
ladder must name the shape in rsync's words. Then, with nothing moving, the same ladder must
show no transfer (the probes' own flows are not one) and name no transfer shape.

Needs root and rsync; exits 77 (ctest skip) otherwise.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from fabric_testlib.netns import Namespaces, require_root
from fabric_testlib.probe_process import PROBE, Responder, write_secret

NS_A, NS_B = "lt-a", "lt-b"
A, B = "198.18.64.1", "198.18.64.2"
PROBE_PORT = 9878
# Both ends' egress is shaped to LINE_RATE with TBF, so the probes measure the line and not this small
# host's CPU. The CLI reads no speed off a veth, so the least transfer the ladder judges is 1% of
# the best rung (~3.75 MB/s). rsync's --bwlimit (KiB/s) holds it at about twice that: a few
# percent of the rung, and too little beside the probe's own bytes to flag it as contended.
LINE_RATE = "3gbit"
BWLIMIT_KIB = 8 * 1024
FILE_BYTES = 256 << 20
SECRET = "fabric-ladder-cli-transfers-secret"
SKIP = 77


def sh(*cmd, check=True):
    return subprocess.run(cmd, check=check, capture_output=True, text=True)


def netns(ns, *cmd):
    return ["ip", "netns", "exec", ns, *cmd]


class RsyncLoop:
    """The real rsync client sending `source` to the daemon again and again until stop()."""

    def __init__(self, source):
        self.cmd = netns(NS_A, "rsync", "--whole-file", "--ignore-times", "--sparse",
                         f"--bwlimit={BWLIMIT_KIB}", source, f"rsync://{B}/data/")
        self.stopping = threading.Event()
        self.error = None
        self.runs = 0
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stopping.is_set():
            p = subprocess.Popen(self.cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                 text=True)
            while p.poll() is None and not self.stopping.wait(0.1):
                pass
            if p.poll() is None:
                p.kill()
            _, err = p.communicate()
            if self.stopping.is_set():
                return
            if p.returncode:
                self.error = f"rsync exited {p.returncode}: {err.strip()}"
                return
            self.runs += 1

    def stop(self):
        self.stopping.set()
        self.thread.join(timeout=30)


def ladder(secret_file):
    out = sh(*netns(NS_A, PROBE, "ladder", f"--peer={B}:{PROBE_PORT}",
                    f"--secret-file={secret_file}", "--duration=1s", "--warmup=300ms",
                    "--no-rdma", "--no-single-stream", "--json"), check=False)
    if out.returncode != 0:
        raise AssertionError(f"fabric_probe ladder exited {out.returncode}: {out.stderr}")
    result = json.loads(out.stdout)
    layers = {layer["layer"]: layer for layer in result["layers"]}
    multi = layers["tcp_multi"]
    print(f"  N-stream TCP: {multi['bytes_per_second']} B/s {multi['verdicts']} {multi['detail']}")
    return layers["transfers"], dict(zip(result["shape_ids"], result["shapes"]))


def rsync_daemon(tmp):
    """The real rsync daemon on B, writing into `tmp`/dest (holes: the source is zeros)."""
    dest = os.path.join(tmp, "dest")
    os.makedirs(dest)
    config = os.path.join(tmp, "rsyncd.conf")
    with open(config, "w") as f:
        f.write(f"pid file = {tmp}/rsyncd.pid\nuse chroot = no\n[data]\n  path = {dest}\n"
                "  read only = no\n  uid = root\n  gid = root\n")
    proc = subprocess.Popen(netns(NS_B, "rsync", "--daemon", "--no-detach", f"--config={config}",
                                  f"--address={B}", "--port=873"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while not sh(*netns(NS_B, "ss", "-tlnH", "sport = :873")).stdout.strip():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(f"the rsync daemon does not listen: {proc.communicate()[1]}")
        time.sleep(0.1)
    return proc


def run_cases(tmp, secret_file, check):
    source = os.path.join(tmp, "source")
    with open(source, "wb") as f:
        f.truncate(FILE_BYTES)  # Zeros that occupy no disk; --sparse keeps them holes.
    loop = RsyncLoop(source)
    try:
        time.sleep(2)  # The first connection is open and moving.
        check(loop.error is None, f"the rsync loop runs ({loop.error})")
        transfers, shapes = ladder(secret_file)
    finally:
        loop.stop()
    print(f"  transfers layer: {transfers['detail'] or transfers['status']}")
    print(f"  shapes: {shapes}")
    check("by rsync" in transfers["detail"],
          "the real-transfers layer names rsync as what moves them")
    check("while the probes ran" in transfers["detail"],
          "the real-transfers layer says when its flows were seen")
    rate = transfers["bytes_per_second"] or 0
    check(0.5 * BWLIMIT_KIB * 1024 < rate < 1.5 * BWLIMIT_KIB * 1024,
          f"its rate {rate / 1e6:.1f} MB/s is rsync's --bwlimit "
          f"({BWLIMIT_KIB * 1024 / 1e6:.1f} MB/s) averaged over the run")
    words = shapes.get("transfers_below_ladder", "")
    check("rsync (its per-file protocol)" in words,
          "the ladder names the transfers far below the ladder in rsync's words")
    check("over the last" in words, "the shape says over how long it judged the transfers")

    transfers, shapes = ladder(secret_file)
    print(f"  transfers layer with nothing moving: {transfers['status']}")
    check(transfers["bytes_per_second"] is None and
          "no bulk flow to this peer while the probes ran" in transfers["status"],
          "with nothing moving, the probes' own flows are no real transfer")
    check("transfers_below_ladder" not in shapes,
          "with nothing moving, no transfer shape is named")


def main():
    require_root()
    if shutil.which("rsync") is None:
        print("SKIP: needs rsync (scripts/setup-deps --test installs it)")
        return SKIP
    failures = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what, flush=True)
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory(prefix="fabric-ladder-cli-") as tmp, \
            Namespaces(NS_A, NS_B) as ns:
        ns.veth(NS_A, "lta0", A + "/30", NS_B, "ltb0", B + "/30", mtu=9000)
        for ns_name, dev in ((NS_A, "lta0"), (NS_B, "ltb0")):
            sh(*netns(ns_name, "tc", "qdisc", "replace", "dev", dev, "root", "tbf", "rate",
                      LINE_RATE, "burst", "256kb", "latency", "1ms"))
        secret_file = write_secret(tmp, "secret", SECRET)
        daemon = rsync_daemon(tmp)
        try:
            with Responder(NS_B, f"--listen={B}:{PROBE_PORT}", f"--allow={A}/32",
                           f"--secret-file={secret_file}"):
                run_cases(tmp, secret_file, check)
        finally:
            daemon.kill()
            daemon.communicate()
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
