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
