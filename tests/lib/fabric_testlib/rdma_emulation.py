"""Helpers for running the shipped binaries on the emulated verbs layer
(libfabric_verbs_emulation preloaded): an emulated device's sysfs root, its
control file (the port state) and counters, and the per-process report the
emulation writes at exit (what is still registered, bytes written and
received, the regions' contents when they were deregistered)."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time


PRELOAD = os.environ.get("FABRIC_EMU_PRELOAD", "")
PROBE = os.environ.get("FABRIC_PROBE", "")
EXPORTER = os.environ.get("FABRIC_EXPORTER", "")
CLIENT = os.environ.get("FABRIC_EMU_CLIENT", "")

# What the emulation puts on the wire per packet (Ethernet+FCS, IPv4, UDP, BTH,
# ICRC) and once per WRITE (RETH): emulation/emu.h.
PACKET_HEADER = 14 + 4 + 20 + 8 + 12 + 4
RETH = 16


def wire_octets(size, mtu):
    packets = max(1, -(-size // mtu))
    return size + packets * PACKET_HEADER + RETH


def fnv1a(data):
    h = 1469598103934665603
    for b in data:
        h ^= b
        h = (h * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def scratch_dir():
    """A temporary directory on tmpfs when there is one: the emulation renames
    a counter file per completion batch, which ext4 makes slow."""
    base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    return tempfile.mkdtemp(prefix="fabric-rdma-emu-", dir=base)


class Device:
    """An emulated RDMA device: DEVICE on NETDEV, its sysfs tree under root."""

    def __init__(self, root, name="emu0", netdev="lo", knobs=None):
        self.root = root
        self.sys = os.path.join(root, "sys")
        self.name = name
        self.netdev = netdev
        self.knobs = dict(knobs or {})
        self.port_dir = os.path.join(self.sys, "class", "infiniband", name, "ports", "1")
        os.makedirs(self.port_dir, exist_ok=True)
        # Everything else a program reads under sysfs is the real one (the
        # exporter's collectors, the TCP probe's interface speed).
        for entry in os.listdir("/sys"):
            if entry != "class" and not os.path.exists(os.path.join(self.sys, entry)):
                os.symlink(os.path.join("/sys", entry), os.path.join(self.sys, entry))
        for entry in os.listdir("/sys/class"):
            path = os.path.join(self.sys, "class", entry)
            if entry != "infiniband" and not os.path.exists(path):
                os.symlink(os.path.join("/sys/class", entry), path)

    def env(self, stats):
        env = {
            "LD_PRELOAD": PRELOAD,
            "FABRIC_EMU_SYSFS": self.sys,
            "FABRIC_EMU_DEVICE": self.name,
            "FABRIC_EMU_NETDEV": self.netdev,
            "FABRIC_EMU_STATS": stats,
        }
        env.update({k: str(v) for k, v in self.knobs.items()})
        return env

    def set_port(self, active):
        """The control file: the port's state, as sysfs shows it."""
        tmp = os.path.join(self.port_dir, ".state.tmp")
        with open(tmp, "w") as f:
            f.write("4: ACTIVE\n" if active else "1: DOWN\n")
        os.replace(tmp, os.path.join(self.port_dir, "state"))

    def counter(self, name):
        for sub in ("counters", "hw_counters"):
            path = os.path.join(self.port_dir, sub, name)
            if os.path.exists(path):
                with open(path) as f:
                    return int(f.read().strip() or 0)
        return None

    def wait_counter(self, name, runner, above=0, timeout=30):
        """Until the counter moved past `above` (the run is under way). `runner`
        (a Proc) is the process that should move it: if it exits first, or the
        wait runs out, the failure carries its exit status and its log."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            v = self.counter(name)
            if v is not None and v > above:
                return v
            if runner.proc.poll() is not None:
                runner.wait(5)
                raise AssertionError(
                    f"{self.name} {name} never moved: the process that should move it exited "
                    f"with status {runner.proc.returncode}; its stderr:\n{runner.err}")
            time.sleep(0.02)
        raise AssertionError(f"{self.name} {name} did not move within {timeout} s; "
                             f"{runner.stop_for_its_log()}")


class Proc:
    """A binary with the emulation preloaded; `prefix` (e.g. ip netns exec)
    runs before it without the preload."""

    def __init__(self, args, device, stats, prefix=(), extra_env=None):
        self.stats = stats
        env_args = [f"{k}={v}" for k, v in device.env(stats).items()]
        env_args += [f"{k}={v}" for k, v in (extra_env or {}).items()]
        self.args = [*prefix, "env", *env_args, *args]
        self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        self.out = self.err = None

    def wait(self, timeout=60):
        self.out, self.err = self.proc.communicate(timeout=timeout)
        return self.proc.returncode

    def signal(self, sig):
        self.proc.send_signal(sig)

    def report(self):
        with open(self.stats) as f:
            return json.load(f)

    def stop_for_its_log(self):
        """Stops a process that is still running (SIGTERM, then SIGKILL after
        10 s) and says what it logged and whether it answered the SIGTERM."""
        answered = True
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.wait(10)
        except subprocess.TimeoutExpired:
            answered = False
            self.proc.kill()
            self.out, self.err = self.proc.communicate()
        return (("it exited on SIGTERM with status " + str(self.proc.returncode)) if answered
                else "it did not answer SIGTERM within 10 s (hung) and was killed") + \
            f"; its stderr:\n{self.err}"

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()


def cleanup(path):
    shutil.rmtree(path, ignore_errors=True)
