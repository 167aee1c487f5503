"""Network namespaces joined by veth for the probe tests: fl5a (responder,
198.18.5.1) and fl5b (requester, 198.18.5.2 and 198.18.5.3). Names and the
subnet are this test area's own, so tests of other areas can run beside it.
Removed on exit, also when a test fails."""
import os
import subprocess

SERVER_NS, CLIENT_NS = "fl5a", "fl5b"
SERVER_DEV, CLIENT_DEV = "fl5va", "fl5vb"
SERVER_IP, CLIENT_IP, CLIENT_IP2 = "198.18.5.1", "198.18.5.2", "198.18.5.3"


def sh(*args, check=True):
    return subprocess.run(args, check=check, capture_output=True, text=True)


def can_run():
    """None when namespaces can be made here, else why not."""
    if os.geteuid() != 0:
        return "not root: network namespaces need CAP_NET_ADMIN"
    for tool in ("ip", "tc"):
        if sh("which", tool, check=False).returncode != 0:
            return tool + " not installed"
    return None


class VethPair:
    def __enter__(self):
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
            raise
        return self

    def __exit__(self, *exc):
        self.cleanup()

    @staticmethod
    def cleanup():
        # Deleting a namespace deletes the veth end inside it, and with it the peer.
        for ns in (SERVER_NS, CLIENT_NS):
            sh("ip", "netns", "del", ns, check=False)

    @staticmethod
    def shape(rate, burst):
        """TBF on the requester's egress (the send direction)."""
        sh("ip", "netns", "exec", CLIENT_NS, "tc", "qdisc", "replace", "dev", CLIENT_DEV, "root",
           "tbf", "rate", rate, "burst", burst, "latency", "20ms")

    @staticmethod
    def unshape():
        sh("ip", "netns", "exec", CLIENT_NS, "tc", "qdisc", "del", "dev", CLIENT_DEV, "root",
           check=False)
