"""Network namespaces and veth pairs for tests: created with iproute2, always
removed, named with a prefix unique to the test so parallel suites never
collide."""
import os
import subprocess


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
