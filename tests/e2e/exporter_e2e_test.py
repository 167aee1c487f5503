#!/usr/bin/env python3
"""The real fabric_exporter binary end to end (tests/README.md, layer 3): HTTP on a
random loopback port, flags, config errors, broken sources and shutdown."""
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import unittest

from fabric_testlib.exporter_process import EXPORTER, FIXTURES, Exporter, fixture_args, promtool_check_metrics, samples


def run_exporter(*args, timeout=10):
    return subprocess.run([EXPORTER, *args], capture_output=True, text=True, timeout=timeout)


class BrokenTree:
    """A copy of the h200 fixture tree with one source broken."""

    def __init__(self, relative, content=None, make_dir=False):
        self.relative, self.content, self.make_dir = relative, content, make_dir

    def __enter__(self):
        self.tmp = tempfile.mkdtemp(prefix="fabric-broken-")
        shutil.copytree(os.path.join(FIXTURES, "h200"), os.path.join(self.tmp, "tree"),
                        symlinks=True)  # sysfs links are kept as links, as captured
        path = os.path.join(self.tmp, "tree", self.relative)
        os.remove(path)
        if self.make_dir:
            os.mkdir(path)
        else:
            with open(path, "wb") as f:
                f.write(self.content)
        return os.path.join(self.tmp, "tree")

    def __exit__(self, *exc):
        shutil.rmtree(self.tmp)


class HttpTest(unittest.TestCase):
    def test_metrics_endpoint_serves_valid_exposition(self):
        with Exporter() as e:
            status, headers, body = e.get("/metrics")
        self.assertEqual(status, 200)
        self.assertTrue(headers["Content-Type"].startswith("text/plain"))
        self.assertEqual(promtool_check_metrics(body), "")
        s = samples(body)
        for collector in ("softnet", "tcp", "sockbuf"):
            self.assertEqual(s[f'fabric_scrape_collector_success{{collector="{collector}"}}'], 1.0)
        self.assertIn("fabric_exporter_build_info{", body)
        self.assertGreater(s["fabric_tcp_segments_received_total"], 0)

    def test_landing_page_health_and_errors(self):
        with Exporter() as e:
            e.metrics()  # So the landing page has a last status to show.
            status, headers, page = e.get("/")
            self.assertEqual(status, 200)
            self.assertTrue(headers["Content-Type"].startswith("text/html"))
            for name in ("softnet", "tcp", "sockbuf"):
                self.assertIn(f'data-collector="{name}"', page)
            self.assertIn('<span class="ok">ok</span>', page)
            self.assertIn('href="/metrics"', page)
            self.assertEqual(e.get("/-/healthy")[0], 200)
            self.assertEqual(e.get("/-/ready")[0], 200)
            self.assertEqual(e.get("/nope")[0], 404)
            self.assertEqual(e.get("/", method="POST")[0], 405)

    def test_custom_telemetry_path(self):
        with Exporter("--web.telemetry-path=/fabric") as e:
            status, _, body = e.get("/fabric")
            self.assertEqual(status, 200)
            self.assertIn("fabric_scrape_collector_success", body)
            self.assertEqual(e.get("/metrics")[0], 404)

    def test_metrics_are_gzipped_only_when_accepted(self):
        import gzip
        import urllib.request

        def get(encoding):
            req = urllib.request.Request(e.base_url + "/metrics",
                                         headers={"Accept-Encoding": encoding} if encoding else {})
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.headers.get("Content-Encoding"), resp.read()

        with Exporter(*fixture_args("h200")) as e:
            encoding, raw = get("gzip")
            self.assertEqual(encoding, "gzip")
            text = gzip.decompress(raw).decode()
            self.assertEqual(promtool_check_metrics(text), "")
            plain_encoding, plain = get(None)
            self.assertIsNone(plain_encoding)
            self.assertEqual(set(samples(text)), set(samples(plain.decode())))
            self.assertLess(len(raw), len(plain) / 3)
            self.assertIsNone(get("gzip;q=0, identity")[0])
            self.assertIsNone(get("br")[0])

    def test_concurrent_scrapes_are_all_answered(self):
        import concurrent.futures
        with Exporter(*fixture_args("h200")) as e:
            with concurrent.futures.ThreadPoolExecutor(8) as pool:
                bodies = list(pool.map(lambda _: e.metrics(), range(32)))
        self.assertTrue(all("fabric_softnet_processed_total" in b for b in bodies))


class Ipv6Test(unittest.TestCase):
    """Plain HTTP on IPv6 listen addresses. Debian's civetweb has no IPv6, so these are served by
    the exporter's own listener (the TLS one, without TLS); IPv4 stays on civetweb."""

    def test_metrics_over_ipv6_loopback(self):
        import gzip
        import urllib.request
        with Exporter("--web.listen-address=[::1]:0", *fixture_args("h200")) as e:
            self.assertRegex(e.base_url, r"^http://\[::1\]:\d+$")
            port = int(e.base_url.rsplit(":", 1)[1])
            status, headers, body = e.get("/metrics")
            self.assertEqual(status, 200)
            self.assertTrue(headers["Content-Type"].startswith("text/plain"))
            self.assertEqual(headers["Cache-Control"], "no-store")  # As civetweb's answers.
            self.assertEqual(promtool_check_metrics(body), "")
            self.assertEqual(samples(body)['fabric_scrape_collector_success{collector="softnet"}'], 1.0)
            req = urllib.request.Request(e.base_url + "/metrics", headers={"Accept-Encoding": "gzip"})
            with urllib.request.urlopen(req, timeout=10) as resp:
                self.assertEqual(resp.headers.get("Content-Encoding"), "gzip")
                self.assertIn("fabric_softnet_processed_total", gzip.decompress(resp.read()).decode())
            self.assertEqual(e.get("/-/healthy")[0], 200)
            self.assertEqual(e.get("/nope")[0], 404)
            self.assertEqual(e.get("/", method="HEAD")[0], 200)
            # Bound to ::1 only: the same port on IPv4 loopback is not this listener.
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                self.assertNotEqual(s.connect_ex(("127.0.0.1", port)), 0)

    def test_every_ipv6_address(self):
        with Exporter("--web.listen-address=[::]:0") as e:
            self.assertRegex(e.base_url, r"^http://\[::\]:\d+$")
            port = e.base_url.rsplit(":", 1)[1]
            e.base_url = f"http://[::1]:{port}"
            self.assertIn("fabric_exporter_build_info{", e.metrics())

    def test_more_concurrent_scrapes_than_threads_are_all_answered(self):
        # Beyond --web.max-threads connections wait in the listen backlog, as on civetweb.
        import concurrent.futures
        with Exporter("--web.listen-address=[::1]:0", "--web.max-threads=2",
                      *fixture_args("h200")) as e:
            with concurrent.futures.ThreadPoolExecutor(8) as pool:
                bodies = list(pool.map(lambda _: e.metrics(), range(32)))
        self.assertTrue(all("fabric_softnet_processed_total" in b for b in bodies))


class CollectorSelectionTest(unittest.TestCase):
    def test_no_collector_flag_removes_softnet(self):
        with Exporter(*fixture_args("h200"), "--no-collector.softnet") as e:
            body = e.metrics()
        self.assertNotIn("fabric_softnet_", body)
        self.assertNotIn('collector="softnet"', body)
        self.assertIn('fabric_scrape_collector_success{collector="tcp"} 1', body)

    def test_disable_defaults_keeps_only_named(self):
        with Exporter(*fixture_args("h200"), "--collector.disable-defaults", "--collector.tcp") as e:
            body = e.metrics()
        self.assertIn('collector="tcp"', body)
        self.assertNotIn('collector="sockbuf"', body)


class BrokenSourceTest(unittest.TestCase):
    def check_only_softnet_fails(self, tree):
        with Exporter("--path.procfs=" + os.path.join(tree, "proc")) as e:
            body = e.metrics()
            log = e.wait_for_log("collector failed")
        s = samples(body)
        self.assertEqual(s['fabric_scrape_collector_success{collector="softnet"}'], 0.0)
        self.assertEqual(s['fabric_scrape_collector_success{collector="tcp"}'], 1.0)
        self.assertEqual(s['fabric_scrape_collector_success{collector="sockbuf"}'], 1.0)
        self.assertNotIn("fabric_softnet_processed_total", body)
        self.assertIn("fabric_tcp_segments_sent_total", body)
        self.assertIn("softnet_stat", log)
        return log

    def test_garbage_softnet_stat_fails_only_softnet(self):
        with BrokenTree("proc/net/softnet_stat", b"this is not\x00 softnet\n") as tree:
            log = self.check_only_softnet_fails(tree)
        self.assertIn("softnet_stat:1: expected at least 9 columns", log)

    def test_unreadable_softnet_stat_fails_only_softnet(self):
        with BrokenTree("proc/net/softnet_stat", make_dir=True) as tree:
            log = self.check_only_softnet_fails(tree)
        self.assertIn("Is a directory", log)

    def test_garbage_sysctl_fails_only_sockbuf(self):
        with BrokenTree("proc/sys/net/core/rmem_max", b"lots\n") as tree:
            with Exporter("--path.procfs=" + os.path.join(tree, "proc")) as e:
                s = samples(e.metrics())
        self.assertEqual(s['fabric_scrape_collector_success{collector="sockbuf"}'], 0.0)
        self.assertEqual(s['fabric_scrape_collector_success{collector="softnet"}'], 1.0)

    def test_missing_files_are_success_without_samples(self):
        with tempfile.TemporaryDirectory() as empty:
            with Exporter("--path.procfs=" + empty, "--path.sysfs=" + empty) as e:
                body = e.metrics()
        self.assertIn('fabric_scrape_collector_success{collector="softnet"} 1', body)
        self.assertNotIn("fabric_softnet_processed_total", body)


class ConfigTest(unittest.TestCase):
    def write(self, text):
        f = tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False)
        f.write(text)
        f.close()
        self.addCleanup(os.remove, f.name)
        return f.name

    def test_unknown_key_names_file_line_and_key(self):
        path = self.write("web:\n  listen_address: 127.0.0.1:0\ncollectors:\n  softnet:\n    enabeld: true\n")
        r = run_exporter("--config.file=" + path)
        self.assertEqual(r.returncode, 2)
        self.assertIn(f"{path}:5:5: key collectors.softnet.enabeld: unknown key", r.stderr)

    def test_wrong_type_names_file_line_and_key(self):
        path = self.write("log:\n  level: [info]\n")
        r = run_exporter("--config.file=" + path)
        self.assertEqual(r.returncode, 2)
        self.assertIn(f"{path}:2:10: key log.level: expected a string, got a list", r.stderr)

    def test_yaml_syntax_error(self):
        path = self.write("web: {listen_address: \n")
        r = run_exporter("--config.file=" + path)
        self.assertEqual(r.returncode, 2)
        self.assertIn(path + ":", r.stderr)
        self.assertIn("YAML syntax error", r.stderr)

    def test_example_config_is_valid_and_config_applies(self):
        example = os.path.join(os.path.dirname(FIXTURES), "..", "deploy", "examples", "fabric_exporter.yml")
        with open(example) as f:
            text = f.read()
        # Every key as documented; only the secret file must exist (mode 0600).
        secret = self.write("0123456789abcdef0123456789abcdef\n")
        os.chmod(secret, 0o600)
        text = text.replace("/etc/fabric-ladder/probe.secret", secret)
        self.assertIn(secret, text)
        # The nodes file beside it, as installed.
        fleet = os.path.join(os.path.dirname(example), "fleet.yml")
        text = text.replace("nodes_file: fleet.yml", "nodes_file: " + fleet)
        self.assertIn(fleet, text)
        r = run_exporter("--config.file=" + self.write(text), "--config.check")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("configuration OK", r.stdout)
        path = self.write("collectors:\n  tcp:\n    enabled: false\n")
        with Exporter("--config.file=" + path) as e:
            self.assertNotIn('collector="tcp"', e.metrics())

    def test_bad_flag(self):
        r = run_exporter("--web.listen-adress=:1")
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown flag --web.listen-adress", r.stderr)


class ScheduledStorageProbeTest(unittest.TestCase):
    def test_storage_rungs_are_measured_and_leave_no_file(self):
        import time
        with tempfile.TemporaryDirectory(dir="/var/tmp") as work:
            config = os.path.join(work, "fabric_exporter.yml")
            probe_dir = os.path.join(work, "probe")
            os.mkdir(probe_dir)
            with open(config, "w") as f:
                f.write("fleet:\n  self: solo\n  nodes: [{name: solo, address: 127.0.0.1}]\n"
                        "probes:\n  max_splay: 0s\n  path: {enabled: false}\n"
                        f"  storage: {{directory: {probe_dir}, interval: 1h, duration: 300ms,\n"
                        "             warmup: 100ms, size: 16777216, reserve: 0}\n"
                        "collectors:\n  flows: {enabled: false}\n")
            with Exporter("--config.file=" + config) as e:
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline:
                    s = samples(e.metrics())
                    write = s.get('fabric_probe_throughput_bytes_per_second{direction="",'
                                  f'probe="storage_write",target="{probe_dir}"}}')
                    if write:
                        break
                    time.sleep(0.3)
                read = s.get('fabric_probe_throughput_bytes_per_second{direction="",'
                             f'probe="storage_read",target="{probe_dir}"}}')
                self.assertGreater(read or 0, 0, e.wait_for_log("storage"))
                self.assertGreater(write or 0, 0)
                self.assertIn(f'fabric_probe_verdict{{direction="",probe="storage_read",'
                              f'target="{probe_dir}",verdict="latency_bound"}}', e.metrics())
            self.assertEqual(os.listdir(probe_dir), [])


class ProcessTest(unittest.TestCase):
    def test_help_is_complete(self):
        r = run_exporter("--help")
        self.assertEqual(r.returncode, 0)
        for flag in ("--web.listen-address", "--web.telemetry-path", "--config.file", "--log.level",
                     "--log.format", "--path.procfs", "--path.sysfs", "--version",
                     "--[no-]collector.softnet", "--[no-]collector.tcp", "--[no-]collector.sockbuf"):
            self.assertIn(flag, r.stdout)

    def test_version(self):
        r = run_exporter("--version")
        self.assertEqual(r.returncode, 0)
        self.assertRegex(r.stdout, r"^fabric_exporter \d+\.\d+\.\d+")

    def test_sigterm_and_sigint_shut_down_cleanly(self):
        for sig in (signal.SIGTERM, signal.SIGINT):
            with Exporter() as e:
                e.metrics()
                self.assertEqual(e.stop(sig), 0)
                self.assertIn("shutting down", e.wait_for_log("shutting down"))

    def test_port_in_use_is_a_clear_error(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            s.listen()
            port = s.getsockname()[1]
            r = run_exporter(f"--web.listen-address=127.0.0.1:{port}", "--log.format=logfmt")
        self.assertEqual(r.returncode, 1)
        self.assertIn(f"cannot listen on 127.0.0.1:{port}", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
