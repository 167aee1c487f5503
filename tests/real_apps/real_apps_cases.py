"""The real_apps test's cases; run inside the hub namespace by real_apps_test.py."""
import html
import os
import re
import tempfile
import time
import unittest

from apps import CpuCap, Loop, Sender, Servers
from fabric_testlib.monitoring import Monitoring
from nodes import NODES, PORT, Nodes

# ---------------------------------------------------------------------------
# EXPECTED: what each case must show, as issue 41 asks (the contract's alert
# names). "alerts": {alertname: {instance, ...}}, exactly the alerts firing in
# Prometheus during the case (FabricProbeHarnessLimited, the probes' own
# report of a busy host, is neither required nor counted); "page": words
# node-a's ladder page (`/`) must show while the case runs; "page_not": words
# it must not show. The page alert fires on both ends of the path: node-a's
# send result and node-b's receive result of the same data. Every capped
# program here moves its data over one connection at a time, far below what
# parallel streams carry: shape 2 (FabricSingleStreamCeiling) is true of each,
# beside the program's own shape.
SINGLE = {"FabricSingleStreamCeiling": {"node-a"}}
PAGE = {"FabricTransfersFarBelowLadder": {"node-a", "node-b"}}
SSH_SHAPE = {"alerts": {"FabricBulkTransferOverSsh": {"node-a"}, **SINGLE, **PAGE},
             "page": ["ssh", "SSH encryption"], "page_not": ["rsync (its"]}
SILENT = {"alerts": {}, "page": [],
          "page_not": ["ssh", "rsync", "the applications, not the fabric"]}
EXPECTED = {
    "idle": SILENT,
    "scp": SSH_SHAPE,
    "scp_per_file": SSH_SHAPE,
    "rsync_ssh": SSH_SHAPE,
    "rsync_daemon": {"alerts": {"FabricApplicationProtocolGap": {"node-a"}, **SINGLE, **PAGE},
                     "page": ["rsync (its per-file protocol)"], "page_not": ["SSH encryption"]},
    "dd_socat": {"alerts": {"FabricUserspaceCopyTransfer": {"node-a"}, **SINGLE, **PAGE},
                 "page": ["socat (a userspace copy pipeline"], "page_not": ["SSH encryption"]},
    "mover": SILENT,
}
# ---------------------------------------------------------------------------

INSTRUMENT = "FabricProbeHarnessLimited"
# The flows collector's `application` for each case's sockets on node-a
# (ports 22, 873, 5201; the dd | socat pipeline by its socat process, its
# sink's port 5500 being no well-known one).
APPLICATION = {"scp": "ssh", "scp_per_file": "ssh", "rsync_ssh": "ssh",
               "rsync_daemon": "rsync", "dd_socat": "socat", "mover": "iperf3"}
# A capped application is set to run near TARGET of the rung the probes
# proved, and must measure at most FAR_BELOW of it: the ratio every "far
# below the ladder" threshold of the bundle reads (the page's is 25%). The
# healthy mover must reach at least HEALTHY of it.
CAP0 = 0.4
TARGET = 0.1
# The ends a case caps (each in its own cgroup): both, unless the case is
# about one of them.
BOTH_ENDS = ("sender", "receiver")
FAR_BELOW = 0.2
HEALTHY = 0.7
CEILING_SECONDS = 6
# The alerts' rate window (15 s in real_apps_rules.jsonnet) plus their `for:`
# (8 s), with room to spare.
OBSERVE_SECONDS = 30
QUIET_WITHIN = 45
RUNGS_WITHIN = 150
# Transfers of about ten seconds at TARGET: each is many scrapes long (one a
# second here); the flows collector counts a connection whole, its last bytes
# from the kernel's destroy message.
SIZE = 384 << 20
# scp per file: one connection per file (the field's: one per file or per
# 2 GB), several seconds each.
FILES, FILE_SIZE = 3, 128 << 20
A, B = "node-a", "node-b"


def page_words(body, peer):
    """What node-a's ladder page says about its path to `peer`: that path's
    section (binding layer, bars, verdicts, shapes) in words, without the fixed
    scale note and the rungs' calibration notes ("copy, 256 KiB blocks"),
    which would match any word a case looks for."""
    section = re.search(r'(?s)<section class="ladder"[^>]*data-peer="%s".*?</section>'
                        % re.escape(peer), body)
    text = re.sub(r'(?s)<p class="scale">.*?</p>', " ", section.group(0) if section else "")
    text = html.unescape(re.sub(r"<[^>]+>", " ", text))
    text = re.sub(r"\((copy|sendfile), [^)]*\)", " ", text)
    return re.sub(r"\s+", " ", text).strip()


class RealAppsTest(unittest.TestCase):
    results = {}

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="fabric-real-apps-")
        cls.nodes = Nodes(cls.tmp.name)
        cls.mon = cls.servers = None
        cls.caps = {}
        try:
            cls.nodes.build()
            cls.nodes.start_exporters()
            cls.mon = Monitoring(cls.tmp.name, {n: f"{a}:{PORT}" for n, (_, a) in NODES.items()},
                                 None, "tests/real_apps/real_apps_rules.jsonnet")
            for end in BOTH_ENDS:
                cls.caps[end] = CpuCap(f"fabric-real-apps-{end}", CAP0,
                                       os.path.join(cls.tmp.name, f"cgroup-{end}"))
            cls.servers = Servers(cls.tmp.name, NODES[B][0], NODES[B][1], cls.caps["receiver"])
            cls.servers.start()
            cls.sender = Sender(cls.tmp.name, NODES[A][0], cls.servers, cls.caps["sender"])
            cls.source = cls.sender.sparse_file("source", SIZE)
            cls.files = [cls.sender.sparse_file(f"file{i}", FILE_SIZE) for i in range(FILES)]
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        for name, r in cls.results.items():
            print(f"RESULT {name}: " + ", ".join(f"{k}={v}" for k, v in r.items()
                                                if k != "pages"), flush=True)
        if cls.servers:
            cls.servers.close()
        for cap in cls.caps.values():
            cap.close()
        if cls.mon:
            cls.mon.close()
        cls.nodes.close()
        cls.tmp.cleanup()

    # -- helpers ---------------------------------------------------------------

    def wait_until(self, what, predicate, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = predicate()
            if value:
                return value
            time.sleep(0.5)
        self.fail(f"{what} not within {timeout} s; firing: {self.mon.firing()}")

    def rung(self, probe):
        """node-a's last clean send result to node-b of `probe`, in bytes/s: the one the
        exporter keeps while later runs share the path with a case's transfer (contended)."""
        got = self.mon.query(
            f'fabric_probe_clean_throughput_bytes_per_second{{instance="{A}",target="{B}",'
            f'direction="send",probe="{probe}"}}')
        return float(got[0]["value"][1]) if got else None

    def firing(self):
        """{(alertname, instance)} firing now, the instrument's own report apart."""
        return {(a[0], a[2].get("instance", "")) for a in self.mon.firing()
                if a[1] == "firing" and a[0] != INSTRUMENT}

    def flows(self):
        """{(instance, application, limiter)} of the bulk flows between the two
        nodes (the probes' own sockets apart)."""
        peers = {NODES[A][1], NODES[B][1]}
        return {(r["metric"]["instance"], r["metric"]["application"], r["metric"]["limiter"])
                for r in self.mon.query('fabric_flows_bulk_flows{application!="fabric_probe"} > 0')
                if r["metric"].get("peer") in peers}

    def page(self):
        status, _, body = self.nodes.exporters[A].get("/")
        self.assertEqual(status, 200)
        return page_words(body, B)

    def observe(self, seconds):
        """Polls Prometheus every second and the page every fifth for `seconds`:
        (alerts fired, flows seen, every distinct page text)."""
        fired, flows, pages = set(), set(), []
        deadline = time.monotonic() + seconds
        polls = 0
        while time.monotonic() < deadline:
            fired |= self.firing()
            flows |= self.flows()
            if polls % 5 == 4:
                text = self.page()
                if text not in pages:
                    pages.append(text)
            polls += 1
            time.sleep(1)
        return fired, flows, pages

    def wait_quiet(self):
        """Until no transfer's flow is left and no alert beyond the idle fleet's fires."""
        idle = set(self.results.get("idle", {}).get("fired", []))
        self.wait_until("a quiet fleet (no bulk flow, no alert beyond the idle fleet's)",
                        lambda: not self.flows() and self.firing() <= idle, QUIET_WITHIN)

    def judge(self, case, fired, pages):
        """The case's alert set and page words against EXPECTED. A word
        counts when one of the page texts seen during the case shows it; an
        unwanted word when any does."""
        want = EXPECTED[case]
        want_alerts = {(name, i) for name, insts in want["alerts"].items() for i in insts}
        seen = " ".join(pages).lower()
        missing_words = [w for w in want["page"] if w.lower() not in seen]
        unwanted_words = [w for w in want["page_not"] if w.lower() in seen]
        self.results[case]["fired"] = sorted(fired)
        self.results[case]["pages"] = pages
        problems = []
        if fired != want_alerts:
            problems.append(f"alerts {sorted(fired)} != expected {sorted(want_alerts)}")
        if missing_words or unwanted_words:
            problems.append(f"the page lacks {missing_words} / shows {unwanted_words}")
        print(f"  {case}: fired {sorted(fired) or 'nothing'}", flush=True)
        for text in pages:  # the binding sentence, then real transfers, verdicts, shapes
            binding = text[:text.find(". ") + 1]
            print(f"  {case}: page: {binding} ... {text[text.rfind('real transfers'):]}",
                  flush=True)
        if problems:
            self.print_evidence(case)
            self.fail(f"{case}: " + "; ".join(problems))

    # What the transfer alerts read, printed when a case's alerts differ from
    # its EXPECTED: the evidence each rule had at the end of the case.
    EVIDENCE = (
        "instance_target_application:fabric_flows_sent_bytes:rate",
        "instance_target_application:fabric_flows_sent_bulk_flows:max",
        "instance_target_application:fabric_flows_application_limited:ratio",
        "instance_target_application:fabric_flows_receiver_not_reading:ratio",
        "instance_target_application:fabric_flows_application_held:ratio",
        'max_over_time(instance_target_application:fabric_flows_application_held:ratio[30s])',
        'min_over_time(instance_target_application:fabric_flows_application_held:ratio[30s])',
        'sum by (instance, application, limiter) (rate(fabric_flows_limited_seconds_total[30s]))',
        "instance_target_application:fabric_probe_tcp_at_streams_bytes_per_second:min",
        "instance_target:fabric_transfers_floor_bytes_per_second:max",
        "instance_target_direction:fabric_transfers_bytes_per_second:sum",
        'instance_target_direction:fabric_probe_uncontended_throughput_bytes_per_second:max'
        '{probe=~"tcp_multi|tcp_single"}',
        'instance_target_direction:fabric_probe_clean_throughput_bytes_per_second:max'
        '{probe=~"tcp_multi|tcp_single"}',
        'fabric_probe_throughput_bytes_per_second{probe="tcp_multi"}',
        'fabric_probe_verdict{probe="tcp_multi"} == 1',
        'time() - fabric_probe_uncontended_timestamp_seconds{probe="tcp_multi"}',
        'time() - fabric_probe_clean_timestamp_seconds{probe="tcp_multi"}',
        'max_over_time(fabric_probe_verdict{probe="tcp_multi"}[3m]) == 1',
        'min_over_time(fabric_probe_throughput_bytes_per_second{probe="tcp_multi"}[3m])',
        'max_over_time(fabric_probe_local_cpu_ratio{probe="tcp_multi"}[3m])',
        'max_over_time(fabric_probe_remote_cpu_ratio{probe="tcp_multi"}[3m])',
        'min_over_time(instance_target_direction:fabric_probe_uncontended_throughput_bytes_per_second'
        ':max{probe="tcp_multi"}[3m])',
        "ALERTS",
    )

    def print_evidence(self, case):
        for expr in self.EVIDENCE:
            for r in self.mon.query(expr):
                labels = ",".join(f"{k}={v}" for k, v in sorted(r["metric"].items())
                                  if k not in ("__name__", "job"))
                print(f"  {case}: evidence {expr.split('{')[0]}{{{labels}}} {r['value'][1]}",
                      flush=True)

    def held_range(self, application, seconds):
        """The share of node-a's `application` flows' time the application
        held them (the sender's or its receiver's, whichever is larger: what
        FabricApplicationProtocolGap judges), lowest and highest over the last
        `seconds`; None while the rules have none."""
        held = "instance_target_application:fabric_flows_application_held:ratio"
        selector = f'{{instance="{A}", application="{application}"}}'
        shares = [float(r["value"][1]) for fn in ("min", "max")
                  for r in self.mon.query(f"{fn}_over_time({held}{selector}[{seconds}s])")]
        return [round(v, 2) for v in shares] if len(shares) == 2 else None

    def set_caps(self, capped, fraction):
        """The ends in `capped` at `fraction` of a CPU, the others uncapped."""
        for end, cap in self.caps.items():
            cap.set(fraction if end in capped else None)

    def run_case(self, case, once, capped=BOTH_ENDS, cap0=CAP0, target=TARGET):
        """One transfer program, looped: its ceiling with the ends in `capped`
        at `cap0` (none: uncapped, the healthy mover), those caps set so it
        runs near `target` of the rung, then OBSERVE_SECONDS of evidence."""
        started = time.monotonic()
        self.wait_quiet()
        rung = self.rung("tcp_multi")
        self.assertTrue(rung, "node-a has no clean tcp_multi result to node-b")
        result = self.results[case] = {"rung_MBps": round(rung / 1e6, 1)}
        self.set_caps(capped, cap0)
        loop = Loop(once)
        try:
            # The ceiling: one whole transfer and CEILING_SECONDS at cap0.
            needed = 1
            deadline = time.monotonic() + 10 * CEILING_SECONDS
            while (loop.runs < needed or time.monotonic() - loop.since < CEILING_SECONDS) and \
                    time.monotonic() < deadline and loop.error is None:
                time.sleep(0.2)
            self.assertIsNone(loop.error)
            self.assertGreater(loop.runs, 0, f"{case}: no transfer ended within "
                               f"{10 * CEILING_SECONDS} s")
            ceiling = loop.rate()
            result["ceiling_MBps"] = round(ceiling / 1e6, 1)
            if capped:
                self.set_caps(capped, min(1.0, cap0 * target * rung / ceiling))
                result["cap_cpu"] = {end: self.caps[end].fraction for end in capped}
            loop.reset()
            fired, flows, pages = self.observe(OBSERVE_SECONDS)
            result["held"] = self.held_range(APPLICATION[case], OBSERVE_SECONDS)
            deadline = time.monotonic() + 60
            while loop.runs == 0 and loop.error is None and time.monotonic() < deadline:
                time.sleep(0.5)  # a slow transfer of the window ends
        finally:
            rate = loop.stop()
        result.update(rate_MBps=round(rate / 1e6, 1), ratio=round(rate / rung, 3),
                      transfers=loop.runs, flows=sorted(flows))
        # Premises: the transfer ran and moved bytes at the ratio the case
        # stands for, and the exporters saw its flow under its application.
        self.assertGreater(loop.runs, 0, f"{case}: no transfer ended in the window")
        if capped:
            self.assertLessEqual(rate / rung, FAR_BELOW,
                                 f"{case}: {rate / 1e6:.1f} MB/s is not far below the "
                                 f"{rung / 1e6:.1f} MB/s rung")
        else:
            self.assertGreaterEqual(rate / rung, HEALTHY,
                                    f"{case}: {rate / 1e6:.1f} MB/s does not reach the "
                                    f"{rung / 1e6:.1f} MB/s rung")
        app = APPLICATION[case]
        self.assertTrue([f for f in flows if f[0] == A and f[1] == app and
                         f[2] != "remote_sender"], f"{case}: node-a saw no {app} flow: {flows}")
        self.assertIn((B, app, "remote_sender"), flows, f"{case}: node-b's view: {flows}")
        self.judge(case, fired, pages)
        result["seconds"] = round(time.monotonic() - started)

    # -- the cases (unittest runs them in name order) ----------------------------

    def test_0_idle_fleet_is_silent(self):
        started = time.monotonic()
        for probe in ("tcp_multi", "tcp_single"):
            self.wait_until(f"node-a's clean {probe} result to node-b",
                            lambda: self.rung(probe), RUNGS_WITHIN)
        self.results["idle"] = {"rung_MBps": round(self.rung("tcp_multi") / 1e6, 1),
                                "single_MBps": round(self.rung("tcp_single") / 1e6, 1)}
        fired, flows, pages = self.observe(OBSERVE_SECONDS)
        self.assertEqual(flows, set(), "bulk flows on an idle fleet")
        self.judge("idle", fired, pages)
        self.results["idle"]["seconds"] = round(time.monotonic() - started)

    def test_1_scp(self):
        self.run_case("scp", self.sender.scp(self.source, SIZE))

    def test_2_scp_per_file(self):
        self.run_case("scp_per_file", self.sender.scp_per_file(self.files, FILE_SIZE))

    def test_3_rsync_over_ssh(self):
        self.run_case("rsync_ssh", self.sender.rsync_ssh(self.source, SIZE))

    def test_4_rsync_daemon(self):
        # The field's rsync daemon: the receiving rsync did not read (its
        # window shut), the sender waited. Capping the receiving end alone
        # makes that end the slow one; with both ends capped alike the two
        # run at about the same speed here (76 and 73 MB/s at 8% of a CPU
        # each), and which end held the flows changed from run to run. Its
        # ceiling is measured at 20% of a CPU, where the receiving rsync is
        # CPU-bound: at 40% it was partly the line's (177-289 MB/s over four
        # runs). Its rate is not in proportion to the cap: 25.5, 43.6 and 57.4
        # MB/s at 5, 6 and 7% of a CPU (a few percent go to nothing the
        # transfer shows), so it aims at 7% of the rung to land near 10%
        # (at 10% one run measured 55 MB/s, 15% of the rung, from a ceiling
        # of 100 MB/s where others measured 134-178).
        self.run_case("rsync_daemon", self.sender.rsync_daemon(self.source, SIZE),
                      capped=("receiver",), cap0=CAP0 / 2, target=0.07)

    def test_5_dd_socat(self):
        self.run_case("dd_socat", self.sender.dd_socat(SIZE))

    def test_6_parallel_mover(self):
        # As many streams as the multi-stream probe (8, its default).
        self.run_case("mover", self.sender.iperf3(seconds=8, streams=8), capped=())
