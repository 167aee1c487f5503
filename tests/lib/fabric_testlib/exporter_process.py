"""Runs the real fabric_exporter binary for tests: on a random loopback port,
with its JSON log parsed to learn the URL it bound."""
import collections
import http.client
import json
import os
import queue
import shutil
import subprocess
import threading
import urllib.error
import urllib.parse
import urllib.request

SOURCE_DIR = os.environ.get(
    "FABRIC_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..")))
EXPORTER = os.environ.get("FABRIC_EXPORTER", os.path.join(SOURCE_DIR, "build", "bin", "fabric_exporter"))
FIXTURES = os.path.join(SOURCE_DIR, "tests", "fixtures")


def fixture_args(tree):
    """Flags that point the exporter at tests/fixtures/<tree>."""
    root = os.path.join(FIXTURES, tree)
    args = ["--path.procfs=" + os.path.join(root, "proc"), "--path.sysfs=" + os.path.join(root, "sys")]
    config = os.path.join(root, "fabric_exporter.yml")
    if os.path.exists(config):
        args.append("--config.file=" + config)
    return args


class ExporterUnanswered(AssertionError):
    """A request the exporter did not answer; the message carries Exporter.diagnosis()."""


def thread_states(pid):
    """One line per (name, state, kernel wait point) with its count, from /proc/PID/task."""
    counts = collections.Counter()
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
            with open(f"/proc/{pid}/task/{tid}/wchan") as f:
                wchan = f.read().strip() or "-"
        except OSError:
            continue  # The thread ended meanwhile.
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        state = stat[stat.rindex(")") + 2]
        counts[(name, state, wchan)] += 1
    return [f"{n} x {name} state {state} in {wchan}" for (name, state, wchan), n in sorted(counts.items())]


class Exporter:
    """A running fabric_exporter; use as a context manager."""

    def __init__(self, *args, binary=EXPORTER, netns=None):
        self.args = [binary, "--web.listen-address=127.0.0.1:0", "--log.format=json", *args]
        if netns:
            # The exporter runs inside the namespace; its loopback listener is
            # reached from there too (see get()).
            self.args = ["ip", "netns", "exec", netns, *self.args]
        self.netns = netns
        self.proc = None
        self.base_url = None
        self.log_lines = []
        self._lines = queue.Queue()

    def __enter__(self):
        self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        threading.Thread(target=self._pump, daemon=True).start()
        while True:
            try:
                line = self._lines.get(timeout=10)
            except queue.Empty:
                self.proc.kill()
                raise RuntimeError("fabric_exporter did not start within 10 s: " + "".join(self.log_lines))
            if line is None:
                raise RuntimeError("fabric_exporter exited at start-up: " + "".join(self.log_lines))
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                # Errors before the logger is set up (a bad flag or config) are plain text; the
                # process exits next and the None above reports them with the whole log.
                continue
            if record.get("msg") == "fabric_exporter listening":
                parts = urllib.parse.urlsplit(record["url"])
                self.base_url = f"{parts.scheme}://{parts.netloc}"
                return self

    def _pump(self):
        for line in self.proc.stderr:
            self.log_lines.append(line)
            self._lines.put(line)
        self._lines.put(None)

    def wait_for_log(self, text, timeout=5.0):
        """Returns the log so far once it contains `text` (stderr is read by a
        thread, so a line written during a request may arrive just after it)."""
        import time
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            log = "".join(self.log_lines)
            if text in log:
                return log
            time.sleep(0.02)
        return "".join(self.log_lines)

    def get(self, path, method="GET"):
        """Returns (status, headers, body text)."""
        if self.netns:
            return self._get_in_netns(path)
        req = urllib.request.Request(self.base_url + path, method=method)
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status, resp.headers, resp.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read().decode()
        except (OSError, http.client.HTTPException) as e:
            # No answer: say what the exporter was doing, so a failure is a finding, not a
            # timeout. A sanitizer report reaches stderr before the process ends.
            raise ExporterUnanswered(f"{path}: {e!r}\n{self.diagnosis()}") from e

    def diagnosis(self):
        """The process's state, its threads' states and kernel wait points, and the log tail."""
        import time
        lines = []
        if self.proc.poll() is None:
            lines.append(f"fabric_exporter (pid {self.proc.pid}) is running; its threads:")
            lines += ["  " + t for t in thread_states(self.proc.pid)]
        else:
            time.sleep(0.5)  # Let the reader thread drain what the process wrote last.
            lines.append(f"fabric_exporter exited with {self.proc.returncode}")
        lines.append("log tail:")
        lines += ["  " + line.rstrip() for line in self.log_lines[-40:]]
        return "\n".join(lines)

    def _get_in_netns(self, path):
        r = subprocess.run(["ip", "netns", "exec", self.netns, "curl", "-s", "-w", "\n%{http_code}",
                            "--max-time", "10", self.base_url + path], capture_output=True, text=True)
        body, _, code = r.stdout.rpartition("\n")
        return int(code or 0), {}, body

    def metrics(self):
        status, _, body = self.get("/metrics")
        assert status == 200, status
        return body

    def stop(self, sig=None):
        import signal as _signal
        self.proc.send_signal(sig or _signal.SIGTERM)
        return self.proc.wait(timeout=10)

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()


def write_fleet_configs(directory, template, nodes, iface, mtu, secret, **fields):
    """One exporter config per fleet node, for tests that run a fleet in
    namespaces: writes `directory`/probe.secret (`secret`, mode 0600) and
    `directory`/NAME.yml for each NAME of `nodes` ({name: (namespace,
    address)}), `template` formatted with self (NAME), nodes (the fleet's node
    list as YAML lines), secret (the file's path), iface and `fields` (a
    callable field is called with NAME). Returns {name: path}."""
    secret_path = os.path.join(directory, "probe.secret")
    with open(secret_path, "w") as f:
        f.write(secret + "\n")
    os.chmod(secret_path, 0o600)
    fleet = "\n".join(f"    - {{name: {name}, address: {address}, interface: {iface}, "
                      f"mtu: {mtu}}}" for name, (_, address) in nodes.items())
    paths = {}
    for name in nodes:
        values = {k: v(name) if callable(v) else v for k, v in fields.items()}
        paths[name] = os.path.join(directory, name + ".yml")
        with open(paths[name], "w") as f:
            f.write(template.format(self=name, nodes=fleet, secret=secret_path, iface=iface,
                                    **values))
    return paths


def promtool_check_metrics(text):
    """Returns promtool's complaints about an exposition ('' when clean)."""
    promtool = shutil.which("promtool")
    if promtool is None:
        raise RuntimeError("promtool is not installed; run scripts/setup-deps")
    result = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True)
    return (result.stdout + result.stderr).strip() if result.returncode != 0 or result.stdout.strip() else ""


def samples(text):
    """Parses exposition text into {series: value} (series as written)."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        series, _, value = line.rpartition(" ")
        out[series] = float(value)
    return out
