#!/usr/bin/env python3
"""The shipped fabric_probe rdma against the shipped fabric_probe serve over
loopback, both on the emulated verbs layer (two emulated devices on lo, one
per process): the real backend code end to end. A positive run whose bytes
match what the responder's region received and what the port counters say;
SIGTERM of either side during the window; ports down before and during the
run on either side; a wrong token; a region over the responder's limit;
completion errors mid-run; congestion counters; the exporter's RDMA rung and
its SIGTERM."""
import json
import os
import signal
import time
import unittest

from fabric_testlib import listening
from fabric_testlib import rdma_emulation as emulated
from fabric_testlib.rdma_emulation import Device, Proc

SECRET = "emulated-rdma-secret-0123456789abcdef"
QPS, SIZE, DEPTH = 2, 65536, 16


class EmulatedRdmaTest(unittest.TestCase):
    def setUp(self):
        self.dir = emulated.scratch_dir()
        self.secret = os.path.join(self.dir, "secret")
        with open(self.secret, "w") as f:
            f.write(SECRET + "\n")
        os.chmod(self.secret, 0o600)
        self.procs = []

    def tearDown(self):
        for p in self.procs:
            p.kill()
        emulated.cleanup(self.dir)

    def device(self, name, **knobs):
        return Device(os.path.join(self.dir, name), name=name, knobs=knobs)

    def serve(self, device, *extra, knobs=None):
        # listening.start, not free_port + a connect: another test's server can take the port
        # between the two, and a probe would then talk to it.
        def launch(port):
            p = Proc([emulated.PROBE, "serve", "--listen", f"127.0.0.1:{port}", "--allow",
                      "127.0.0.1/32", "--secret-file", self.secret, "--path.sysfs", device.sys,
                      "--idle-timeout", "3s", *extra],
                     device, os.path.join(self.dir, f"serve-{len(self.procs)}.json"),
                     extra_env=knobs)
            self.procs.append(p)
            return p.proc

        _, self.port = listening.start(launch, "fabric_probe serve", timeout=10)
        return self.procs[-1]

    def probe(self, device, *extra, duration="1s", warmup="200ms"):
        p = Proc([emulated.PROBE, "rdma", "--peer", f"127.0.0.1:{self.port}", "--secret-file",
                  self.secret, "--path.sysfs", device.sys, "--qps", str(QPS), "--size", str(SIZE),
                  "--tx-depth", str(DEPTH), "--duration", duration, "--warmup", warmup, "--json",
                  *extra],
                 device, os.path.join(self.dir, f"probe-{len(self.procs)}.json"))
        self.procs.append(p)
        return p

    def stop_serve(self, serve):
        serve.signal(signal.SIGTERM)
        self.assertEqual(serve.wait(20), 0, serve.err)
        return serve.report()

    def assert_clean(self, report, who):
        self.assertEqual(report["live"], {"pd": 0, "mr": 0, "cq": 0, "qp": 0, "cm_id": 0,
                                          "channel": 0}, f"{who} left objects registered")
        self.assertEqual(report["notes"], [], f"{who}: misuse a provider would reject")

    def test_positive_run_bytes_match_region_and_counters(self):
        local, remote = self.device("emu0"), self.device("emu1")
        serve = self.serve(remote)
        probe = self.probe(local)
        self.assertEqual(probe.wait(60), 0, probe.err)
        result = json.loads(probe.out)
        theirs = self.stop_serve(serve)
        ours = probe.report()
        self.assert_clean(ours, "fabric_probe rdma")
        self.assert_clean(theirs, "fabric_probe serve")
        self.assertEqual(ours["peak"]["qp"], QPS)
        self.assertEqual(theirs["peak"]["qp"], QPS)

        # The window's bytes are completions the poller saw, every completion
        # is a WRITE that landed in the responder's region.
        self.assertGreater(result["messages"], 0)
        self.assertEqual(result["bytes"], result["messages"] * SIZE)
        self.assertEqual(ours["bytes_completed"], ours["writes_completed"] * SIZE)
        self.assertLessEqual(result["bytes"], ours["bytes_completed"])
        self.assertEqual(theirs["writes_received"], ours["writes_completed"])
        self.assertEqual(theirs["bytes_received"], ours["bytes_completed"])
        self.assertEqual(ours["error_completions"], 0)
        region = [m for m in theirs["deregistered"] if m["length"] == QPS * SIZE]
        self.assertEqual(len(region), 1, theirs["deregistered"])
        self.assertEqual(region[0]["access"], 3)  # LOCAL_WRITE | REMOTE_WRITE, nothing more
        self.assertEqual(region[0]["remote_bytes"], theirs["bytes_received"])
        # What is in the region is the requester's pattern, every byte of it.
        self.assertEqual(region[0]["fnv1a"], emulated.fnv1a(b"\xa5" * (QPS * SIZE)))

        port = result["port"]
        mtu = port["path_mtu_bytes"]
        self.assertEqual(mtu, 4096)  # lo's MTU allows the largest RoCE MTU
        self.assertEqual((port["device"], port["responder_device"]), ("emu0", "emu1"))
        per_write = emulated.wire_octets(SIZE, mtu)
        # The port counters (4-octet words) say what crossed: over the whole
        # run on both ports...
        self.assertEqual(local.counter("port_xmit_data"), ours["writes_completed"] * per_write // 4)
        self.assertEqual(remote.counter("port_rcv_data"),
                         theirs["writes_received"] * per_write // 4)
        # ...and in the window: the completions counted plus at most the
        # opening and closing polls (up to 32 a QP each).
        xmit = result["counters"]["local"]["xmit_bytes"]
        self.assertGreaterEqual(xmit, result["messages"] * per_write - 4)
        self.assertLessEqual(xmit, (result["messages"] + 2 * QPS * min(32, DEPTH)) * per_write + 4)
        before = result["counters"]["local_before"]["xmit_bytes"]
        after = result["counters"]["local_after"]["xmit_bytes"]
        self.assertEqual(after - before, xmit)
        self.assertGreater(result["counters"]["responder"]["rcv_bytes"], 0)

        checks = result["self_checks"]
        self.assertTrue(checks["counters_consistent"], checks)
        self.assertFalse(checks["contended"], checks)
        self.assertFalse(checks["congested"], checks)
        # qp_limited follows from the measured rate and the port's rate file.
        below = result["bytes_per_second"] * 8 < 0.9 * port["link_bits_per_second"]
        self.assertEqual(checks["qp_limited"],
                         below and not checks["cpu_bound"] and not checks["congested"])
        self.assertGreater(result["cpu"]["local"]["poll_thread_core_fraction"], 0)

    def test_sigterm_of_the_probe_during_the_window(self):
        local, remote = self.device("emu0"), self.device("emu1")
        serve = self.serve(remote)
        probe = self.probe(local, duration="30s", warmup="0s")
        local.wait_counter("port_xmit_data", probe)
        sent = time.monotonic()
        probe.signal(signal.SIGTERM)
        self.assertEqual(probe.wait(20), 128 + signal.SIGTERM, probe.err)
        self.assertLess(time.monotonic() - sent, 10, "the 30 s window was not cut short")
        self.assertIn("interrupted", probe.err)
        self.assert_clean(probe.report(), "fabric_probe rdma")
        # The responder freed the session: the next run is served.
        again = self.probe(local)
        self.assertEqual(again.wait(60), 0, again.err)
        theirs = self.stop_serve(serve)
        self.assert_clean(theirs, "fabric_probe serve")
        self.assertGreater(theirs["writes_received"], 0)

    def test_sigterm_of_the_responder_during_the_window(self):
        local, remote = self.device("emu0"), self.device("emu1")
        serve = self.serve(remote)
        probe = self.probe(local, duration="30s", warmup="0s")
        remote.wait_counter("port_rcv_data", probe)
        theirs = self.stop_serve(serve)
        self.assert_clean(theirs, "fabric_probe serve")
        # The requester's WRITEs now go unanswered: a completion error with
        # its status, not a hang until the window's end.
        self.assertEqual(probe.wait(20), 1, probe.err)
        self.assertIn("transport retry counter exceeded", probe.err)
        self.assert_clean(probe.report(), "fabric_probe rdma")

    def test_port_down_before_the_run(self):
        for side in ("local", "responder"):
            with self.subTest(side=side):
                local, remote = self.device(f"a{side}"), self.device(f"b{side}")
                (local if side == "local" else remote).set_port(False)
                serve = self.serve(remote)
                probe = self.probe(local)
                self.assertEqual(probe.wait(30), 10, probe.err)
                self.assertEqual(json.loads(probe.out)["error"]["kind"], "no-port")
                self.assertIn("no active port", probe.err)
                theirs = self.stop_serve(serve)
                self.assertEqual(theirs["peak"]["qp"], 0)  # nothing was set up
                self.assert_clean(theirs, "fabric_probe serve")
                self.assert_clean(probe.report(), "fabric_probe rdma")

    def test_local_port_down_during_the_run(self):
        local, remote = self.device("emu0"), self.device("emu1")
        serve = self.serve(remote)
        probe = self.probe(local, duration="30s", warmup="0s")
        local.wait_counter("port_xmit_data", probe)
        local.set_port(False)
        self.assertEqual(probe.wait(20), 10, probe.err)
        err = json.loads(probe.out)["error"]
        self.assertEqual(err["kind"], "no-port")
        self.assertIn("went down during the run", err["message"])
        self.assertIn("transport retry counter exceeded", err["message"])
        self.assert_clean(probe.report(), "fabric_probe rdma")
        self.assert_clean(self.stop_serve(serve), "fabric_probe serve")

    def test_responder_port_down_during_the_run_is_a_completion_error(self):
        local, remote = self.device("emu0"), self.device("emu1")
        serve = self.serve(remote)
        probe = self.probe(local, duration="30s", warmup="0s")
        remote.wait_counter("port_rcv_data", probe)
        remote.set_port(False)
        self.assertEqual(probe.wait(20), 1, probe.err)
        self.assertIn("RDMA WRITE completed with error: transport retry counter exceeded",
                      probe.err)
        self.assert_clean(probe.report(), "fabric_probe rdma")
        self.assert_clean(self.stop_serve(serve), "fabric_probe serve")

    def test_remote_access_error_mid_run(self):
        # The responder NAKs from its 50th WRITE on (as if the rkey were
        # revoked): the work completion status is reported.
        local, remote = self.device("emu0"), self.device("emu1")
        serve = self.serve(remote, knobs={"FABRIC_EMU_NAK_FROM": "50"})
        probe = self.probe(local, duration="30s", warmup="0s")
        self.assertEqual(probe.wait(30), 1, probe.err)
        self.assertIn("RDMA WRITE completed with error: remote access error (status 10", probe.err)
        theirs = self.stop_serve(serve)
        self.assertEqual(theirs["writes_received"], 49)
        self.assertIn("IBV_EVENT_QP_ACCESS_ERR", theirs["async_events"])
        self.assert_clean(theirs, "fabric_probe serve")
        self.assert_clean(probe.report(), "fabric_probe rdma")

    def test_congestion_counters_make_the_run_congested(self):
        local, remote = self.device("emu0"), self.device("emu1")
        serve = self.serve(remote, knobs={"FABRIC_EMU_CNP_EVERY": "1",
                                          "FABRIC_EMU_OOB_EVERY": "10"})
        probe = self.probe(local)
        self.assertEqual(probe.wait(60), 0, probe.err)
        result = json.loads(probe.out)
        self.assertTrue(result["self_checks"]["congested"], result["self_checks"])
        self.assertGreater(result["counters"]["responder"]["np_cnp_sent"], 0)
        self.assertGreater(result["counters"]["local"]["rp_cnp_handled"], 0)
        self.assertGreater(result["counters"]["responder"]["out_of_buffer"], 0)
        self.assert_clean(self.stop_serve(serve), "fabric_probe serve")

    def test_a_transfer_into_the_responder_makes_the_run_contended(self):
        # Issue 42 item 3: another transfer fills the responder's receive side (a second
        # requester, emu2, writing into a second responder on the same device emu1, whose
        # counters both processes share). Our own port carries only the probe: judged at this
        # end alone the run was clean. The positive run above is the near miss.
        local, remote, other = self.device("emu0"), self.device("emu1"), self.device("emu2")
        serve = self.serve(remote)
        ours_port = self.port
        other_serve = self.serve(remote)
        background = self.probe(other, duration="40s", warmup="0s")
        remote.wait_counter("port_rcv_data", background)
        self.port = ours_port
        probe = self.probe(local)
        self.assertEqual(probe.wait(60), 0, probe.err)
        self.assertIsNone(background.proc.poll(), "the other transfer ended before our window")
        background.signal(signal.SIGTERM)
        background.wait(20)
        result = json.loads(probe.out)
        checks = result["self_checks"]
        self.assertTrue(checks["contended"], result)
        self.assertTrue(checks["counters_consistent"], result)  # our port: the probe alone
        self.assertTrue(any(n.startswith("contended: responder emu1 port 1 received")
                            for n in checks["notes"]), checks["notes"])
        self.assertFalse(any(n.startswith("contended: emu0") for n in checks["notes"]),
                         checks["notes"])
        self.assert_clean(self.stop_serve(serve), "fabric_probe serve")
        self.assert_clean(self.stop_serve(other_serve), "fabric_probe serve")

    def test_region_over_the_responders_limit_is_rejected(self):
        local, remote = self.device("emu0"), self.device("emu1")
        serve = self.serve(remote, "--rdma-max-region", "64K")
        probe = self.probe(local)  # 2 x 64 KiB
        self.assertEqual(probe.wait(30), 8, probe.err)
        self.assertIn("region", probe.err)
        theirs = self.stop_serve(serve)
        self.assertEqual(theirs["peak"]["mr"], 0)

    def test_wrong_token_in_the_connect_private_data_is_refused(self):
        local, remote = self.device("emu0"), self.device("emu1")
        serve = self.serve(remote)
        args = [emulated.CLIENT, "--peer", f"127.0.0.1:{self.port}", "--secret-file", self.secret]
        right = Proc(args, local, os.path.join(self.dir, "client-right.json"))
        self.assertEqual(right.wait(30), 0, right.out + right.err)  # the control case
        wrong = Proc(args + ["--token", "0" * 32], local, os.path.join(self.dir, "client.json"))
        self.assertEqual(wrong.wait(30), 5, wrong.out + wrong.err)
        self.assertIn("refused:", wrong.out)
        self.assertIn("REJECTED", wrong.out)
        self.assert_clean(wrong.report(), "client")
        self.assert_clean(self.stop_serve(serve), "fabric_probe serve")

    def test_exporter_rdma_rung_and_its_sigterm(self):
        dev = self.device("emu0")
        state = os.path.join(self.dir, "state.json")
        config = os.path.join(self.dir, "fabric_exporter.yml")

        # The responder listens on 127.0.0.1:port; listening.start starts the exporter again on
        # another port if another process took this one first.
        def launch(port):
            with open(config, "w") as f:
                f.write(f"""
fleet:
  self: node-a
  nodes:
    - {{name: node-a, address: 127.0.0.1, interface: lo}}
probes:
  secret_file: {self.secret}
  state_file: {state}
  loopback: true
  max_splay: 0s
  tcp: {{port: {port}, round: 34s, duration: 300ms, warmup: 100ms, streams: 1,
         single_stream: false, calibration: {{enabled: false}}}}
  rdma: {{duration: 30s, warmup: 0s, qps: 2, size: 65536, tx_depth: 16}}
collectors:
  flows: {{enabled: false}}
""")
            self.procs.append(Proc([emulated.EXPORTER, "--config.file=" + config,
                                    "--path.sysfs=" + dev.sys, "--web.listen-address=127.0.0.1:0"],
                                   dev, os.path.join(self.dir, "exporter.json")))
            return self.procs[-1].proc

        listening.start(launch, "fabric_exporter", timeout=30)
        exporter = self.procs[-1]
        # The plan round is aligned to the wall clock: its first run is due within 1.2 rounds
        # (34 s, plus up to a fifth of it); then the TCP rung, then RDMA. A wait that runs out
        # stops the exporter and shows its log (this is how a deadlock in it was found).
        dev.wait_counter("port_xmit_data", exporter, timeout=1.2 * 34 + 35)
        sent = time.monotonic()
        exporter.signal(signal.SIGTERM)
        self.assertEqual(exporter.wait(30), 0, exporter.err)
        self.assertLess(time.monotonic() - sent, 15, "the 30 s RDMA window was not cut short")
        report = exporter.report()
        self.assert_clean(report, "fabric_exporter")
        # Both sides are this process: every completion landed first.
        self.assertGreater(report["writes_completed"], 0)
        self.assertGreaterEqual(report["writes_received"], report["writes_completed"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
