"""Real Prometheus and Alertmanager processes for the tests that run the
whole stack (tests/stack, tests/real_apps), and the webhook receiver
Alertmanager notifies: configs written to a temp dir, ports chosen free,
every process stopped on exit."""
import json
import os
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import yaml

from fabric_testlib import listening
from fabric_testlib.exporter_process import SOURCE_DIR

JOB = "fabric-stack"


def render_rules(path, overrides):
    """The shipped mixin, overridden for a test by the jsonnet file `overrides`
    (relative to the source tree, e.g. tests/stack/stack_rules.jsonnet), which
    reads the scrape job from the ext-str `job`."""
    rendered = subprocess.run(
        ["jsonnet", "--ext-str", "job=" + JOB, "-J", SOURCE_DIR,
         os.path.join(SOURCE_DIR, overrides)],
        check=True, capture_output=True, text=True).stdout
    yml = subprocess.run(["python3", os.path.join(SOURCE_DIR, "rules", "yaml_emit.py")],
                         input=rendered, check=True, capture_output=True, text=True).stdout
    with open(path, "w") as f:
        f.write(yml)


class Webhook:
    """Records every alert of every notification:
    (time, path, status, labels, annotations)."""

    def __init__(self):
        self.events = []
        self.lock = threading.Lock()
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                now = time.monotonic()
                with hook.lock:
                    for alert in body["alerts"]:
                        hook.events.append((now, self.path, alert["status"], alert["labels"],
                                            alert["annotations"]))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def since(self, t0):
        with self.lock:
            return [e for e in self.events if e[0] >= t0]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def alertmanager_config(webhook_url, path):
    """deploy/examples/alertmanager.yml as shipped (routes, inhibitions), with
    its webhooks pointed at the test's receiver and its timers shortened."""
    with open(os.path.join(SOURCE_DIR, "deploy", "examples", "alertmanager.yml")) as f:
        config = yaml.safe_load(f)
    config["route"].update(group_wait="1s", group_interval="1s", repeat_interval="1h")
    for receiver in config["receivers"]:
        for hook in receiver.get("webhook_configs", []):
            parts = urllib.parse.urlsplit(hook["url"])
            hook["url"] = webhook_url + parts.path
            hook["send_resolved"] = True
    config.setdefault("global", {})["resolve_timeout"] = "5m"
    with open(path, "w") as f:
        yaml.safe_dump(config, f)


class Process:
    """A server started by `args(port)` on a free loopback port (`port`), its
    output in `log_path`; listening there once constructed."""

    def __init__(self, name, args, log_path):
        self.name = name
        self.log_path = log_path
        self.log = None

        def launch(port):
            if self.log:
                self.log.close()
            self.log = open(log_path, "w")
            return subprocess.Popen(args(port), stdout=self.log, stderr=subprocess.STDOUT)
        try:
            self.proc, self.port = listening.start(launch, name)
        except RuntimeError as e:
            self.log.close()
            raise RuntimeError(f"{e}:\n{self.tail()}") from None

    def tail(self, lines=30):
        with open(self.log_path) as f:
            return "".join(f.readlines()[-lines:])

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def get_json(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())


def wait_ready(url, what, proc, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.proc.poll() is not None:
            raise RuntimeError(f"{what} exited at start-up:\n{proc.tail()}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{what} not ready after {timeout} s:\n{proc.tail()}")


class Monitoring:
    """Prometheus scraping `targets` {instance: host:port} every second with
    the rule bundle rendered through `overrides` (see render_rules), notifying
    an Alertmanager that notifies `webhook` (none without a webhook)."""

    def __init__(self, tmp, targets, webhook, overrides):
        self.tmp = tmp
        self.procs = []
        rules = os.path.join(tmp, "fabric-ladder.rules.yml")
        render_rules(rules, overrides)
        self.am = None
        prom_config = {
            "global": {"scrape_interval": "1s", "scrape_timeout": "900ms",
                       "evaluation_interval": "1s"},
            "rule_files": [rules],
            "scrape_configs": [{
                "job_name": JOB,
                "static_configs": [{"targets": [t], "labels": {"instance": name}}
                                   for name, t in targets.items()]}],
        }
        if webhook:
            self._start_alertmanager(webhook)
            prom_config["alerting"] = {"alertmanagers": [{"static_configs": [
                {"targets": [f"127.0.0.1:{self.am.port}"]}]}]}
        prom_path = os.path.join(tmp, "prometheus.yml")
        with open(prom_path, "w") as f:
            yaml.safe_dump(prom_config, f)
        subprocess.run(["promtool", "check", "config", prom_path], check=True,
                       capture_output=True)
        self.prom = Process("prometheus", lambda port: [
            "prometheus", "--config.file=" + prom_path,
            "--storage.tsdb.path=" + os.path.join(tmp, "prom-data"),
            f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn"],
            os.path.join(tmp, "prometheus.log"))
        self.procs.append(self.prom)
        self.prom_url = f"http://127.0.0.1:{self.prom.port}"
        wait_ready(self.prom_url + "/-/ready", "prometheus", self.prom)

    def _start_alertmanager(self, webhook):
        tmp = self.tmp
        am_config = os.path.join(tmp, "alertmanager.yml")
        alertmanager_config(webhook.url, am_config)
        self.am = Process("alertmanager", lambda port: [
            "prometheus-alertmanager", "--config.file=" + am_config,
            "--storage.path=" + os.path.join(tmp, "am-data"),
            f"--web.listen-address=127.0.0.1:{port}",
            "--cluster.listen-address=", "--log.level=warn"], os.path.join(tmp, "am.log"))
        self.procs.append(self.am)
        wait_ready(f"http://127.0.0.1:{self.am.port}/-/ready", "alertmanager", self.am)

    def query(self, expr):
        url = self.prom_url + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
        return get_json(url)["data"]["result"]

    def firing(self):
        """Alerts Prometheus holds in state firing or pending: [(name, state, labels)]."""
        alerts = get_json(self.prom_url + "/api/v1/alerts")["data"]["alerts"]
        return [(a["labels"]["alertname"], a["state"], a["labels"]) for a in alerts]

    def close(self):
        for p in reversed(self.procs):
            p.stop()
