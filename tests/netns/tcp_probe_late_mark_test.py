#!/usr/bin/env python3
"""Window-edge messages that reach the responder late: what the TCP probe says.

The responder counts the send direction between the MARK messages it reads on the control
connection, which shares the data's path; a MARK lost there arrives a retransmission timeout
late. A benchmark run once reported 0 bit/s with exit status 0 that way. Here the requester's
egress holds back the MARKs themselves, on real sockets: an HTB class at 8 bit/s with a
one-byte burst, fed by a u32 filter on the first payload bytes ("MARK" at offset 52: 20 bytes of
IPv4 header, 32 of TCP header with timestamps, which this test turns on). One primer datagram
spends the class's burst first, so every MARK after it waits there until the qdisc is deleted,
which drops it; TCP then retransmits it.

1. Both edges held until every data stream has ended (the requester's streams in FIN-WAIT-2):
   the responder reads them together, after the data. Before the fix: exit 0, 0 bit/s. Now:
   exit 12, kind window-missed.
2. Only the end edge held ("se=e" of "MARK phase=end" at offset 60), for 0.5 s more after the
   streams ended: before the fix the responder's window ran on over time with no data
   (1.39 s for a 1 s window held 0.3 s, the rate 30% low). Now it ends at the last FIN:
   exit 0 and a window within 0.25 s of the probe's.
3. The near miss: the same qdisc and filters with nothing held measure normally.

Deterministic: what is held is chosen by content, it is released only once the streams have
ended (seen with ss), and the checks do not depend on how long the release takes. Root only
(exit 77 otherwise)."""
import subprocess
import sys
import time

from fabric_testlib import netns
from fabric_testlib.netns import CLIENT_DEV, CLIENT_NS, SERVER_IP, SERVER_NS
from fabric_testlib.probe_process import Responder, Secrets, parse_probe_json, probe_cmd

PORT = 9878
STREAMS = 2
DURATION = 1.0
MARK = 0x4d41524b  # "MARK", the first payload bytes of both edges
END = 0x73653d65  # "se=e", bytes 8-11 of "MARK phase=end"
NOTHING = 0x58585858  # "XXXX": no control message starts so


def tc(*args):
    netns.sh("ip", "netns", "exec", CLIENT_NS, "tc", *args)


def hold(word, offset):
    """Holds the requester's packets to the responder's port whose payload has `word` at
    `offset`, until release()."""
    tc("qdisc", "add", "dev", CLIENT_DEV, "root", "handle", "1:", "htb")  # the rest passes
    tc("class", "add", "dev", CLIENT_DEV, "parent", "1:", "classid", "1:1", "htb", "rate", "8bit",
       "ceil", "8bit", "burst", "1b", "cburst", "1b")
    tc("filter", "add", "dev", CLIENT_DEV, "parent", "1:", "protocol", "ip", "prio", "1", "u32",
       "match", "ip", "dport", str(PORT), "0xffff", "match", "u32", hex(word), "0xffffffff", "at",
       str(offset), "flowid", "1:1")
    # HTB sends one packet on a full bucket: the primer spends it.
    tc("filter", "add", "dev", CLIENT_DEV, "parent", "1:", "protocol", "ip", "prio", "2", "u32",
       "match", "ip", "protocol", "17", "0xff", "match", "ip", "dport", "9", "0xffff", "flowid",
       "1:1")
    netns.sh("ip", "netns", "exec", CLIENT_NS, sys.executable, "-c",
             "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto("
             "b'primer', ('%s', 9))" % SERVER_IP)


def release():
    netns.sh("ip", "netns", "exec", CLIENT_NS, "tc", "qdisc", "del", "dev", CLIENT_DEV, "root",
             check=False)


def streams_ended():
    return netns.connections(CLIENT_NS, "fin-wait-2", "( dport = :%d )" % PORT) >= STREAMS


def run(secret, word, offset, extra_hold):
    """One probe run with `word` held; returns (exit status, JSON, stderr)."""
    hold(word, offset)
    proc = subprocess.Popen(probe_cmd(CLIENT_NS, "--peer", SERVER_IP, "--secret-file", secret,
                                      "--streams", str(STREAMS), "--duration", "%dms" % (DURATION * 1000),
                                      "--warmup", "300ms", "--json"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while not streams_ended():
            if proc.poll() is not None or time.monotonic() > deadline:
                break  # the probe finished on its own (nothing held), or the check below says
            time.sleep(0.05)
        time.sleep(extra_hold)
        release()
        out, err = proc.communicate(timeout=60)
    finally:
        release()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, parse_probe_json(out), err


def main():
    why = netns.can_run()
    if why:
        print("SKIP: " + why)
        return 77
    failures = []
    with netns.VethPair(), Secrets() as secrets, \
            Responder(SERVER_NS, "--listen", SERVER_IP, "--allow", netns.CLIENT_IP + "/32",
                      "--secret-file", secrets.good):
        netns.sh("ip", "netns", "exec", CLIENT_NS, "sh", "-c",
                 "echo 1 > /proc/sys/net/ipv4/tcp_timestamps")

        rc, doc, err = run(secrets.good, MARK, 52, 0)
        error = (doc or {}).get("error", {})
        print("both edges after the data: exit %s, %s" % (rc, error or doc), flush=True)
        if rc != 12 or error.get("kind") != "window-missed":
            failures.append("both edges late: expected exit 12 kind window-missed, got exit %s: "
                            "%s %s" % (rc, doc, err))

        rc, doc, err = run(secrets.good, END, 60, 0.5)
        window = ((doc or {}).get("directions") or [{}])[0].get("window_seconds")
        print("end edge 0.5 s after the data: exit %s, responder's window %s s, %s bytes/s" % (
            rc, window, (doc or {}).get("bytes_per_second")), flush=True)
        if rc != 0 or window is None:
            failures.append("end edge late: expected a result, got exit %s: %s %s" % (rc, doc, err))
        elif not DURATION - 0.05 < window < DURATION + 0.25:
            failures.append("end edge late: the responder's window is %.3f s for a %.1f s run: it "
                            "ran on after the data ended" % (window, DURATION))

        rc, doc, err = run(secrets.good, NOTHING, 52, 0)
        window = ((doc or {}).get("directions") or [{}])[0].get("window_seconds")
        print("nothing held: exit %s, responder's window %s s" % (rc, window), flush=True)
        if rc != 0 or not doc or doc.get("bytes_per_second", 0) <= 0 or window is None:
            failures.append("nothing held: expected a measurement, got exit %s: %s %s" % (rc, doc, err))
        elif not DURATION - 0.05 < window < DURATION + 0.25:
            failures.append("nothing held: the responder's window is %.3f s" % window)
    if failures:
        print("FAIL:\n" + "\n".join(failures))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
