"""Network namespaces and veth pairs for tests, made with iproute2 and always
removed. Two shapes share this module:

- `Namespaces(*names)` and its `veth(...)`: namespaces named with a prefix
  unique to the test, so parallel suites never collide (the exporter tests).
- `VethPair()`: the probe tests' pair, fl5a-PID (responder, 198.18.5.1) and
  fl5b-PID (requester, 198.18.5.2 and 198.18.5.3). The fl5 prefix and the
  subnet are that test area's own; the PID suffix keeps two runs (say from two
  worktrees carrying these tests) from deleting each other's namespaces, and a
  lock file serialises the runs so they do not compete for CPU. Removed on
  exit, also when a test fails; namespaces left by a killed run are removed by
  the next one."""
import fcntl
import os
import re
import subprocess
import time


def ip(*args, check=True):
    return subprocess.run(["ip", *args], check=check, capture_output=True, text=True)


def kill_namespace_processes(ns):
    """Kills, by pid, whatever still runs in namespace `ns` (left by a crashed run)."""
    r = ip("netns", "pids", ns, check=False)
    for pid in r.stdout.split():
        try:
            os.kill(int(pid), 9)
        except (ProcessLookupError, ValueError):
            pass


def bridge_fabric(hub, bridge, hub_address, nodes, iface, mtu, port_prefix):
    """A fabric of namespaces on one bridge: the bridge (MTU `mtu`, address
    `hub_address`/24) in the existing namespace `hub`, and for each (ns,
    address) of `nodes` a new namespace `ns` whose interface `iface` (a veth
    whose hub end is port_prefix + its index) holds `address`/24."""
    ip("-n", hub, "link", "set", "lo", "up")
    ip("-n", hub, "link", "add", bridge, "mtu", str(mtu), "type", "bridge")
    ip("-n", hub, "addr", "add", hub_address + "/24", "dev", bridge)
    ip("-n", hub, "link", "set", bridge, "up")
    for i, (ns, address) in enumerate(nodes):
        ip("netns", "del", ns, check=False)
        ip("netns", "add", ns)
        ip("-n", ns, "link", "set", "lo", "up")
        port = f"{port_prefix}{i}"
        ip("link", "add", iface, "mtu", str(mtu), "netns", ns, "type", "veth", "peer", "name",
           port, "mtu", str(mtu), "netns", hub)
        ip("-n", ns, "addr", "add", address + "/24", "dev", iface)
        ip("-n", ns, "link", "set", iface, "up")
        ip("-n", hub, "link", "set", port, "master", bridge, "up")


def tune_socket_buffers(ns, max_bytes=1 << 30):
    """A tuned fabric host in namespace `ns`: socket buffers may grow to
    `max_bytes`, enough for the bandwidth-delay product of the fastest NIC a
    test fleet claims (a veth reports 10 Gbit/s; a fixture node 200 GbE).
    Some kernels refuse net.core.rmem_max/wmem_max inside a namespace (6.18:
    EINVAL, which `sysctl -q` does not report, so the host's value stays);
    tcp_rmem/tcp_wmem always take."""
    for key in ("net.core.rmem_max", "net.core.wmem_max"):
        ip("netns", "exec", ns, "sysctl", "-qw", f"{key}={max_bytes}")
    for key in ("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"):
        ip("netns", "exec", ns, "sysctl", "-qw", f"{key}=4096 131072 {max_bytes}")


def run_in_hub(hub, namespaces, script, *args):
    """Runs `script` (a Python file) with `args` inside a fresh namespace `hub`
    and returns its exit status; `hub` and `namespaces` are removed first (left
    by a run that was killed outright) and after, whatever happened. ctest's
    timeout sends SIGTERM: it unwinds through the cleanup too."""
    import signal
    import sys
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    every = [hub, *namespaces]
    for ns in every:
        kill_namespace_processes(ns)
        ip("netns", "del", ns, check=False)
    ip("netns", "add", hub)
    try:
        return subprocess.call(["ip", "netns", "exec", hub, sys.executable,
                                os.path.abspath(script), *args])
    finally:
        for ns in every:
            kill_namespace_processes(ns)
            ip("netns", "del", ns, check=False)


INSIDE_HUB = "--inside-hub"


def hub_test_main(script, what, tools, hub, namespaces, test_case):
    """The main of a test that runs inside a hub namespace (tests/stack,
    tests/real_apps): started by hand or by ctest, it checks root, `tools`
    and python3-yaml (exit 77, skipped, without them) and runs `script` again
    inside `hub` (run_in_hub); there, it runs the unittest case class that
    `test_case()` imports. Returns the exit status."""
    import importlib.util
    import shutil
    import sys
    import unittest
    if len(sys.argv) > 1 and sys.argv[1] == INSIDE_HUB:
        del sys.argv[1]
        suite = unittest.TestLoader().loadTestsFromTestCase(test_case())
        return 0 if unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful() else 1
    why = None
    missing = [t for t in tools if shutil.which(t) is None]
    if os.geteuid() != 0:
        why = f"{what} needs root (network namespaces, tc)"
    elif missing:
        why = "missing " + ", ".join(missing) + " (scripts/setup-deps --test installs them)"
    elif importlib.util.find_spec("yaml") is None:
        why = "python3-yaml is not installed"
    if why:
        print("SKIP: " + why)
        return 77
    return run_in_hub(hub, namespaces, script, INSIDE_HUB, *sys.argv[1:])


def require_root():
    """Exit with ctest's skip code (77) when namespaces cannot be made."""
    if os.geteuid() != 0:
        print("SKIP: network namespace tests need root")
        raise SystemExit(77)


class Namespaces:
    """Creates namespaces `names`; `veth(a, ifa, b, ifb)` joins two of them."""

    def __init__(self, *names):
        self.names = names

    def __enter__(self):
        for name in self.names:
            ip("netns", "del", name, check=False)
            ip("netns", "add", name)
            ip("-n", name, "link", "set", "lo", "up")
        return self

    def veth(self, ns_a, if_a, addr_a, ns_b, if_b, addr_b, mtu=1500):
        ip("link", "add", if_a, "mtu", str(mtu), "netns", ns_a, "type", "veth", "peer", "name", if_b,
           "mtu", str(mtu), "netns", ns_b)
        for ns, dev, addr in ((ns_a, if_a, addr_a), (ns_b, if_b, addr_b)):
            ip("-n", ns, "addr", "add", addr, "dev", dev)
            ip("-n", ns, "link", "set", dev, "up")

    def __exit__(self, *exc):
        for name in self.names:
            ip("netns", "del", name, check=False)


# The probe tests' pair.
LOCK_PATH = "/run/lock/fabric-fl5-netns.lock"
LOCK_WAIT_SECONDS = 600

_RUN = os.getpid()
SERVER_NS, CLIENT_NS = "fl5a-%d" % _RUN, "fl5b-%d" % _RUN
SERVER_DEV, CLIENT_DEV = "fl5va%d" % (_RUN % 100000), "fl5vb%d" % (_RUN % 100000)
SERVER_IP, CLIENT_IP, CLIENT_IP2 = "198.18.5.1", "198.18.5.2", "198.18.5.3"


def sh(*args, check=True):
    return subprocess.run(args, check=check, capture_output=True, text=True)


def connections(ns, state, selector):
    """TCP connections in `state` matching the ss `selector` in namespace `ns`."""
    out = sh("ip", "netns", "exec", ns, "ss", "-tnH", "state", state, selector).stdout
    return len([line for line in out.splitlines() if line.strip()])


def established_connections(ns, port):
    """Established TCP connections to local `port` in namespace `ns` (ss)."""
    return connections(ns, "established", "( sport = :%d )" % port)


def can_run():
    """None when namespaces can be made here, else why not."""
    if os.geteuid() != 0:
        return "not root: network namespaces need CAP_NET_ADMIN"
    for tool in ("ip", "tc"):
        if sh("which", tool, check=False).returncode != 0:
            return tool + " not installed"
    return None


class VethPair:
    def _lock(self):
        os.makedirs(os.path.dirname(LOCK_PATH), exist_ok=True)
        self.lock_file = open(LOCK_PATH, "w")
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        while True:
            try:
                fcntl.flock(self.lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise RuntimeError("another run has held %s for %d s" % (LOCK_PATH, LOCK_WAIT_SECONDS))
                time.sleep(0.5)

    def __enter__(self):
        self._lock()
        self.cleanup()
        try:
            sh("ip", "netns", "add", SERVER_NS)
            sh("ip", "netns", "add", CLIENT_NS)
            sh("ip", "link", "add", SERVER_DEV, "type", "veth", "peer", "name", CLIENT_DEV)
            sh("ip", "link", "set", SERVER_DEV, "netns", SERVER_NS)
            sh("ip", "link", "set", CLIENT_DEV, "netns", CLIENT_NS)
            sh("ip", "-n", SERVER_NS, "addr", "add", SERVER_IP + "/24", "dev", SERVER_DEV)
            sh("ip", "-n", CLIENT_NS, "addr", "add", CLIENT_IP + "/24", "dev", CLIENT_DEV)
            sh("ip", "-n", CLIENT_NS, "addr", "add", CLIENT_IP2 + "/24", "dev", CLIENT_DEV)
            for ns, dev in ((SERVER_NS, SERVER_DEV), (CLIENT_NS, CLIENT_DEV)):
                sh("ip", "-n", ns, "link", "set", dev, "up")
                sh("ip", "-n", ns, "link", "set", "lo", "up")
        except BaseException:
            self.cleanup()
            self.lock_file.close()
            raise
        return self

    def __exit__(self, *exc):
        self.cleanup()
        self.lock_file.close()  # releases the lock

    @staticmethod
    def cleanup():
        # Deleting a namespace deletes the veth end inside it, and with it the peer.
        for ns in (SERVER_NS, CLIENT_NS):
            sh("ip", "netns", "del", ns, check=False)
        for line in sh("ip", "netns", "list", check=False).stdout.splitlines():
            m = re.match(r"(fl5[ab]-(\d+))\b", line)
            if m and not os.path.exists("/proc/%s" % m.group(2)):
                sh("ip", "netns", "del", m.group(1), check=False)

    @staticmethod
    def shape(rate, burst):
        """TBF on the requester's egress (the send direction)."""
        sh("ip", "netns", "exec", CLIENT_NS, "tc", "qdisc", "replace", "dev", CLIENT_DEV, "root",
           "tbf", "rate", rate, "burst", burst, "latency", "20ms")

    @staticmethod
    def unshape():
        sh("ip", "netns", "exec", CLIENT_NS, "tc", "qdisc", "del", "dev", CLIENT_DEV, "root",
           check=False)
