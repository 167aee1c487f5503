#!/usr/bin/env python3
"""Network faults around a running fabric_exporter (root: namespaces fx-a and
fx-b joined by a veth, 198.18.60.0/24):

- an interface removed between scrapes, and removed/re-added during scrapes;
- a peer whose "responder" accepts and never answers: the TCP probe times out
  within its bound with reason="timeout" and closes the connection;
- the peer's `fabric_probe serve` killed (SIGKILL) mid-probe: a failure
  reason, no connection of the exporter left;
- SIGTERM while the TCP probe streams and while the path probe waits for its
  jumbo echo: exit 0 within a few seconds, no state-file temporaries, no child.

Every case also checks that the exporter keeps serving scrapes."""
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from fabric_testlib.exporter_process import EXPORTER, Exporter, promtool_check_metrics, samples
from fabric_testlib.netns import Namespaces, ip, require_root

NS_A, NS_B = "fx-a", "fx-b"
ADDR_A, ADDR_B, ADDR_NOBODY = "198.18.60.1", "198.18.60.2", "198.18.60.99"
PORT = 19878
PROBE = os.environ.get("FABRIC_PROBE",
                       os.path.join(os.path.dirname(os.path.dirname(EXPORTER)), "active-probes",
                                    "fabric_probe"))

CONFIG = """
fleet:
  self: node-a
  nodes:
{nodes}
probes:
  secret_file: {secret}
  state_file: {state}
  max_splay: 0s
  skip_when_busy_fraction: 0
  path: {path}
{tcp}
collectors:
  flows: {{enabled: false}}
  pcie: {{enabled: false}}
  netdev: {{device_include: "^fx"}}
"""

# A responder that accepts and then never says a word: it reports each
# connection and how long the client kept it open.
SILENT_PEER = """
import socket, sys, threading, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(16)
print("listening", flush=True)
def hold(c):
    start = time.monotonic()
    try:
        while c.recv(4096):
            pass
    except OSError:
        print("reset", flush=True)
        return
    print("closed %.3f" % (time.monotonic() - start), flush=True)
while True:
    c, _ = s.accept()
    print("accepted", flush=True)
    threading.Thread(target=hold, args=(c,), daemon=True).start()
"""


def initiating_order(round_seconds, lead=1.5):
    """Orders the two-node fleet so that node-a initiates the next plan round
    that starts at least `lead` seconds from now (the plan, exporter/scheduled_probes/
    probe_plan.cc: with two nodes, index 1 initiates even rounds and index 0
    odd ones), so a test waits one round at most. Returns (a_first, start)."""
    now = time.time()
    number = math.floor(now / round_seconds) + 1
    if number * round_seconds - now < lead:
        number += 1
    return number % 2 == 1, number * round_seconds


def exporter_connections(ns, pid, peer):
    """The exporter's TCP sockets to `peer` (ss -tanp in its namespace)."""
    out = ip("netns", "exec", ns, "ss", "-tanpH").stdout
    return [line for line in out.splitlines() if f"pid={pid}," in line and peer + ":" in line]


def children(pid):
    kids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        kids.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return kids


def probe_series(body, name, probe):
    return {s: v for s, v in samples(body).items()
            if s.startswith(name + "{") and f'probe="{probe}"' in s}


class FaultsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_root()
        cls.ns = Namespaces(NS_A, NS_B).__enter__()
        cls.ns.veth(NS_A, "fxa0", ADDR_A + "/24", NS_B, "fxb0", ADDR_B + "/24")
        # Both directions shaped to 1 Gbit/s. At veth speed the TCP probe's streams keep both
        # CPUs of a small machine busy, and one `ip netns exec ss` from a test then waited up to
        # 8 s for a CPU (2-core CI machine): longer than the probe runs the tests act inside.
        for ns, dev in ((NS_A, "fxa0"), (NS_B, "fxb0")):
            ip("netns", "exec", ns, "tc", "qdisc", "replace", "dev", dev, "root", "tbf", "rate",
               "1gbit", "burst", "1mb", "latency", "20ms")
        cls.tmp = tempfile.TemporaryDirectory(prefix="fx-netns-")
        cls.secret = os.path.join(cls.tmp.name, "secret")
        with open(cls.secret, "w") as f:
            f.write("0123456789abcdef0123456789abcdef\n")
        os.chmod(cls.secret, 0o600)

    @classmethod
    def tearDownClass(cls):
        cls.ns.__exit__(None, None, None)
        cls.tmp.cleanup()

    def setUp(self):
        self.procs = []
        self.state_dir = tempfile.mkdtemp(dir=self.tmp.name)

    def tearDown(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
            p.wait()

    def spawn(self, ns, *args):
        p = subprocess.Popen(["ip", "netns", "exec", ns, *args], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
        self.procs.append(p)
        return p

    def config(self, peer_address=ADDR_B, a_first=True, path="{enabled: false}", tcp=None,
               mtu="", extra=""):
        nodes = [f"    - {{name: node-a, address: {ADDR_A}, interface: fxa0{mtu}}}",
                 f"    - {{name: node-b, address: {peer_address}, interface: fxb0{mtu}}}"]
        if not a_first:
            nodes.reverse()
        # The latency mesh stays off: every 5 s it connects to the peer's
        # responder port and resets at once, which a test watching that port
        # for the TCP probe's connection would take for it.
        tcp_line = ("  tcp: {" + tcp + f", port: {PORT}, single_stream: false, streams: 2,"
                    " calibration: {enabled: false}}\n  mesh: {enabled: false}"
                    if tcp else "") + extra
        path_file = os.path.join(self.state_dir, "fabric_exporter.yml")
        with open(path_file, "w") as f:
            f.write(CONFIG.format(nodes="\n".join(nodes), secret=self.secret,
                                  state=os.path.join(self.state_dir, "state.yml"), path=path,
                                  tcp=tcp_line))
        return "--config.file=" + path_file

    def assert_serving(self, e):
        status, _, body = e.get("/metrics")
        self.assertEqual(status, 200)
        self.assertEqual(promtool_check_metrics(body), "")
        return body

    def wait_metric(self, e, predicate, timeout, what):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            body = self.assert_serving(e)
            if predicate(body):
                return body
            time.sleep(0.25)
        self.fail(f"{what}: not seen within {timeout} s; the exporter's log ends:\n" +
                  "".join(e.log_lines[-20:]))

    # Shutdown itself takes up to ~2 s after a scrape (the web server's worker
    # threads poll in 2 s quanta); a probe that ignored SIGTERM would add its
    # whole remaining run (8 s, 30 s here).
    def assert_clean_shutdown(self, e, seconds=4):
        pid = e.proc.pid
        self.assertEqual(children(pid), [], "the exporter runs no child process")
        start = time.monotonic()
        e.proc.send_signal(signal.SIGTERM)
        rc = e.proc.wait(timeout=30)
        took = time.monotonic() - start
        print(f"    exit {rc} {took:.2f} s after SIGTERM", file=sys.stderr)
        self.assertEqual(rc, 0)
        self.assertLess(took, seconds, "SIGTERM stops a running probe promptly")
        leftovers = [n for n in os.listdir(self.state_dir)
                     if n not in ("fabric_exporter.yml", "state.yml")]
        self.assertEqual(leftovers, [], "no state-file temporaries")
        self.assertEqual(children(pid), [])
        return took

    # --- interfaces -------------------------------------------------------

    def test_interface_removed_between_and_during_scrapes(self):
        ip("link", "add", "fxgone0", "netns", NS_A, "type", "veth", "peer", "name", "fxgone1",
           "netns", NS_B)
        ip("-n", NS_A, "link", "set", "fxgone0", "up")
        with Exporter(self.config(path="{enabled: false}"), netns=NS_A) as e:
            body = self.assert_serving(e)
            self.assertIn('device="fxgone0"', body)
            ip("-n", NS_A, "link", "del", "fxgone0")
            for _ in range(3):
                body = self.assert_serving(e)
                self.assertNotIn('device="fxgone0"', body)
                self.assertIn('device="fxa0"', body)
                self.assertIn('fabric_scrape_collector_success{collector="netdev"} 1', body)
            self.assertNotIn("collector failed", "".join(e.log_lines))

            # Now while scrapes run: created and deleted in a tight loop.
            stop = threading.Event()

            def churn():
                while not stop.is_set():
                    ip("link", "add", "fxgone0", "netns", NS_A, "type", "veth", "peer", "name",
                       "fxgone1", "netns", NS_B, check=False)
                    ip("-n", NS_A, "link", "set", "fxgone0", "up", check=False)
                    ip("-n", NS_A, "link", "del", "fxgone0", check=False)

            thread = threading.Thread(target=churn)
            thread.start()
            ok = 0
            try:
                for _ in range(25):
                    body = self.assert_serving(e)
                    ok += 'fabric_scrape_collector_success{collector="netdev"} 1' in body
            finally:
                stop.set()
                thread.join()
                ip("-n", NS_A, "link", "del", "fxgone0", check=False)
            failed = [json.loads(line) for line in e.log_lines
                      if '"collector failed"' in line]
            print(f"    netdev success in {ok}/25 scrapes during churn", file=sys.stderr)
            # A scrape that lost the race says which interface and file.
            for r in failed:
                self.assertEqual(r["collector"], "netdev")
                self.assertIn("fxgone0", r["err"])
            self.assertEqual(ok + len(failed), 25)
            body = self.assert_serving(e)
            self.assertIn('fabric_scrape_collector_success{collector="netdev"} 1', body)
            self.assertNotIn('device="fxgone0"', body)

    # --- TCP probe --------------------------------------------------------

    def test_peer_accepts_and_never_answers(self):
        peer = self.spawn(NS_B, sys.executable, "-c", SILENT_PEER, ADDR_B, str(PORT))
        self.assertEqual(peer.stdout.readline().strip(), "listening")
        events = []
        threading.Thread(target=lambda: events.extend(iter(peer.stdout.readline, "")),
                         daemon=True).start()
        # node-a initiates every other round: a 6 s round leaves 7 s between
        # the 5 s timeout and its next connection to the silent peer, time
        # enough to see the first one closed and none left (a 3 s round left 1 s).
        a_first, _ = initiating_order(6)
        with Exporter(self.config(a_first=a_first, tcp="round: 6s, duration: 200ms, warmup: 0s"),
                      netns=NS_A) as e:
            reason = 'fabric_probe_failure_info{direction="send",probe="tcp_multi",' \
                     'reason="timeout",target="node-b"} 1'
            # While the probe hangs on the silent peer, scrapes are answered at once.
            # node-a initiates one round in two: its first run starts within 2 rounds.
            deadline = time.monotonic() + 20
            while not events:
                self.assertLess(time.monotonic(), deadline, "the probe never connected: " +
                                "".join(e.log_lines[-20:]))
                start = time.monotonic()
                self.assert_serving(e)
                self.assertLess(time.monotonic() - start, 2)
                time.sleep(0.2)
            body = self.wait_metric(e, lambda b: reason in b, 15, "reason=timeout")
            took = samples(body)['fabric_probe_run_duration_seconds{direction="send",'
                                 'probe="tcp_multi",target="node-b"}']
            # The bound: the control connection's 5 s timeout, not the round or forever.
            self.assertGreaterEqual(took, 4.5)
            self.assertLess(took, 6.5)
            deadline = time.monotonic() + 3
            while not any(ev.startswith("closed") for ev in events) and \
                    time.monotonic() < deadline:
                time.sleep(0.1)
            closed = [float(ev.split()[1]) for ev in events if ev.startswith("closed")]
            self.assertTrue(closed, f"the exporter closed its connection ({events})")
            # Only the probe connected, and it closed rather than reset.
            self.assertNotIn("reset\n", events)
            self.assertEqual(exporter_connections(NS_A, e.proc.pid, ADDR_B), [])
            self.assertIn("did not answer HELLO", "".join(e.log_lines))
            self.assert_serving(e)

    def test_responder_killed_mid_probe(self):
        serve = self.spawn(NS_B, PROBE, "serve", f"--listen={ADDR_B}:{PORT}",
                           f"--allow={ADDR_A}/32", "--secret-file=" + self.secret)
        a_first, start = initiating_order(6)
        with Exporter(self.config(a_first=a_first, tcp="round: 6s, duration: 3s, warmup: 0s"),
                      netns=NS_A) as e:
            # Wait for the data streams, then kill the responder under them.
            deadline = time.monotonic() + 15
            while len(exporter_connections(NS_A, e.proc.pid, ADDR_B)) < 3:
                self.assertLess(time.monotonic(), deadline, "the probe did not start")
                time.sleep(0.05)
            time.sleep(0.5)
            serve.kill()
            serve.wait()
            failed = lambda b: any(v == 1 for v in probe_series(
                b, "fabric_probe_failure_info", "tcp_multi").values())
            body = self.wait_metric(e, failed, 10, "a tcp_multi failure")
            print("    " + str(probe_series(body, "fabric_probe_failure_info", "tcp_multi")),
                  file=sys.stderr)
            self.assertEqual(exporter_connections(NS_A, e.proc.pid, ADDR_B), [])
            self.assertIn('"tcp probe failed"', "".join(e.log_lines))
            self.assertIsNone(e.proc.poll())
            self.assert_serving(e)

    def test_sigterm_during_tcp_probe(self):
        self.spawn(NS_B, PROBE, "serve", f"--listen={ADDR_B}:{PORT}", f"--allow={ADDR_A}/32",
                   "--secret-file=" + self.secret)
        a_first, _ = initiating_order(12)
        with Exporter(self.config(a_first=a_first, tcp="round: 12s, duration: 8s, warmup: 1s"),
                      netns=NS_A) as e:
            deadline = time.monotonic() + 30
            while len(exporter_connections(NS_A, e.proc.pid, ADDR_B)) < 3:
                self.assertLess(time.monotonic(), deadline,
                                "the probe did not start: " + "".join(e.log_lines))
                time.sleep(0.05)
            time.sleep(1.5)  # Past the warm-up, inside the measured window.
            self.assert_clean_shutdown(e)
            self.assertIn('"shutting down"', "".join(e.log_lines))

    def test_sigterm_while_serving_a_peers_probe(self):
        # The embedded responder, mid-session for a peer's `fabric_probe tcp`.
        responder = f"  responder: {{enabled: true, listen: ['{ADDR_A}:{PORT}']}}"
        with Exporter(self.config(extra=responder), netns=NS_A) as e:
            client = self.spawn(NS_B, PROBE, "tcp", f"--peer={ADDR_A}:{PORT}",
                                "--secret-file=" + self.secret, "--duration=4s", "--streams=2")
            deadline = time.monotonic() + 10
            while len(exporter_connections(NS_A, e.proc.pid, ADDR_B)) < 3:
                self.assertLess(time.monotonic(), deadline, "the peer's probe did not start")
                time.sleep(0.05)
            time.sleep(1)
            self.assert_clean_shutdown(e)
            # The peer's probe ends with an error instead of hanging on us.
            out, _ = client.communicate(timeout=15)
            self.assertNotEqual(client.returncode, 0, out)
            print("    peer's probe: " + out.strip().splitlines()[-1], file=sys.stderr)

    # --- path probe -------------------------------------------------------

    def test_sigterm_during_path_probe(self):
        # Nobody has ADDR_NOBODY: the jumbo echo waits out its whole timeout.
        with Exporter(self.config(peer_address=ADDR_NOBODY, mtu=", mtu: 1500",
                                  path="{interval: 1m, echo_timeout: 30s}"), netns=NS_A) as e:
            time.sleep(1.5)
            self.assert_serving(e)
            self.assert_clean_shutdown(e)


if __name__ == "__main__":
    unittest.main(verbosity=2)
