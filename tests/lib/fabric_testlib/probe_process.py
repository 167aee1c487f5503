"""Runs the real fabric_probe binary inside the test namespaces."""
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
PROBE = os.environ.get("FABRIC_PROBE", os.path.join(SOURCE_DIR, "build", "bin", "fabric_probe"))


def require_executables(parser, tools):
    """parser.error() naming the first (flag, path) of `tools` that is not an
    executable, with how to build fabric_probe when it is --probe: otherwise
    a benchmark's first sign of a missing binary is a server that never
    listens. A path of None or "" is an optional tool not asked for."""
    for flag, path in tools:
        if path and not shutil.which(path):
            hint = (" (build it: cmake -S . -B build -G Ninja && ninja -C build fabric_probe;"
                    " or pass --probe build-test/bin/fabric_probe)" if flag == "--probe" else "")
            parser.error(f"{flag} {path}: no such executable{hint}")


def write_secret(directory, name, text):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text + "\n")
    os.chmod(path, 0o600)
    return path


class Secrets:
    def __enter__(self):
        self.dir = tempfile.TemporaryDirectory(prefix="fl5-secret-")
        self.good = write_secret(self.dir.name, "good", "fabric-test-shared-secret-42")
        self.wrong = write_secret(self.dir.name, "wrong", "not-the-shared-secret-at-all")
        return self

    def __exit__(self, *exc):
        self.dir.cleanup()


class Responder:
    """`fabric_probe serve` in a namespace; a context manager."""

    def __init__(self, ns, *args):
        self.cmd = ["ip", "netns", "exec", ns, PROBE, "serve", *args]
        self.log = []

    def __enter__(self):
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        lines = queue.Queue()

        def pump():
            for line in self.proc.stderr:
                self.log.append(line)
                lines.put(line)
            lines.put(None)

        threading.Thread(target=pump, daemon=True).start()
        while True:
            line = lines.get(timeout=10)
            if line is None:
                raise RuntimeError("fabric_probe serve exited: " + "".join(self.log))
            if "probe responder listening" in line:
                return self

    def __exit__(self, *exc):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stderr.close()

    def alive(self):
        return self.proc.poll() is None


def probe_cmd(ns, *args):
    return ["ip", "netns", "exec", ns, PROBE, "tcp", *args]


def run_probe(ns, *args, timeout=60):
    """Runs `fabric_probe tcp`; returns (exit status, parsed JSON or None, stderr)."""
    p = subprocess.run(probe_cmd(ns, *args, "--json"), capture_output=True, text=True, timeout=timeout)
    return p.returncode, parse_probe_json(p.stdout), p.stderr


def parse_probe_json(out):
    """`fabric_probe ... --json` output as a dict; None when it printed none or not JSON."""
    try:
        return json.loads(out) if out.strip() else None
    except json.JSONDecodeError:
        return None
