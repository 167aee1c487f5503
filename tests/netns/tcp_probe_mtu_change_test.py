#!/usr/bin/env python3
"""An MTU change during a TCP probe run: what the product says.

The probe's connections agree their segment size when they connect. When an end's interface
MTU drops during the run, segments sized for the old MTU are dropped by the receiving link
with no ICMP to shrink them, so the window measures a black hole, not the path: a throughput
record from it would accuse the path (FabricPathFarBelowPeers) of what is a configuration
change that the MTU alerts already name. The probe therefore fails the run with kind
`config-changed` (exit status 11; the exporter records reason="config_changed" and the next
round measures the new setting), for a change at either end, and names which end changed.

Deterministic: the MTU is changed only after the data connections are established (seen with
ss in the responder's namespace) and well inside a 10 s window, so the change always lands
between the probe's first MTU reading (before it dials the streams) and its last (at the
window's end). The path is shaped to 1 Gbit/s: at veth speed the probe's streams keep both
CPUs of a small machine busy, and one `ip netns exec ss` of this test then waited up to 8 s
for a CPU (measured on the 2-core CI machine), which can carry the change past the window's
end. Root only (exit 77 otherwise)."""
import json
import subprocess
import sys
import time

from fabric_testlib import netns
from fabric_testlib.netns import CLIENT_DEV, CLIENT_NS, SERVER_DEV, SERVER_IP, SERVER_NS
from fabric_testlib.probe_process import Responder, Secrets, probe_cmd, run_probe

PORT = 9878
STREAMS = 2


def set_mtu(ns, dev, mtu):
    netns.sh("ip", "-n", ns, "link", "set", dev, "mtu", str(mtu))


def established_data_connections():
    return netns.established_connections(SERVER_NS, PORT) - 1  # less the control one


def change_during_run(secret, ns, dev):
    """Starts a 10 s probe, lowers `dev`'s MTU in `ns` once the streams are up; returns the
    probe's (exit status, JSON)."""
    proc = subprocess.Popen(probe_cmd(CLIENT_NS, "--peer", SERVER_IP, "--secret-file", secret,
                                      "--streams", str(STREAMS), "--duration", "10s",
                                      "--warmup", "300ms", "--json"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 8
        while established_data_connections() < STREAMS:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("the probe's streams never connected: " +
                                     proc.communicate()[1])
            time.sleep(0.05)
        set_mtu(ns, dev, 1500)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, json.loads(out) if out.strip() else None, err


def main():
    why = netns.can_run()
    if why:
        print("SKIP: " + why)
        return 77
    failures = []
    with netns.VethPair(), Secrets() as secrets, \
            Responder(SERVER_NS, "--listen", SERVER_IP, "--allow", netns.CLIENT_IP + "/32",
                      "--secret-file", secrets.good):
        netns.VethPair.shape("1gbit", "1mb")
        for ns, dev, who in ((SERVER_NS, SERVER_DEV, "responder's "), (CLIENT_NS, CLIENT_DEV, "")):
            set_mtu(SERVER_NS, SERVER_DEV, 9000)
            set_mtu(CLIENT_NS, CLIENT_DEV, 9000)
            # The near miss: the same path at 9000 with no change measures normally.
            rc, doc, err = run_probe(CLIENT_NS, "--peer", SERVER_IP, "--secret-file",
                                     secrets.good, "--streams", str(STREAMS), "--duration", "1s",
                                     "--warmup", "300ms")
            if rc != 0 or not doc or doc.get("bytes_per_second", 0) <= 0:
                failures.append("a run with no MTU change did not measure: rc %s %s %s" %
                                (rc, doc, err))
            rc, doc, err = change_during_run(secrets.good, ns, dev)
            error = (doc or {}).get("error", {})
            print("%sMTU 9000 -> 1500 mid-run: exit %s, %s" % (who or "requester's ", rc, error),
                  flush=True)
            if rc != 11 or error.get("kind") != "config-changed":
                failures.append("%s MTU change: expected exit 11 kind config-changed, got exit "
                                "%s: %s %s" % (who or "requester's", rc, doc, err))
            elif ("%s%s MTU changed from 9000 to 1500" % (who, dev)) not in error.get("message", ""):
                failures.append("the message does not name the end that changed: %s" % error)
    if failures:
        print("FAIL:\n" + "\n".join(failures))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
