"""The stack test's fabric: three nodes in network namespaces on one bridge,
each with a fabric_exporter and the fleet config, plus a hub namespace holding
the bridge where Prometheus, Alertmanager and the webhook run. Faults are
injected with iproute2/tc exactly as an operator would meet them."""
import os
import shutil
import subprocess

from fabric_testlib.exporter_process import FIXTURES, Exporter, write_fleet_configs
from fabric_testlib.netns import (bridge_fabric, ip, kill_namespace_processes,
                                   tune_socket_buffers)

HUB = "fs-prom"
BRIDGE = "fs-br0"
HUB_ADDRESS = "198.18.40.254"
IFACE = "fab0"
MTU = 9000
PORT = 9877
# name: (namespace, fabric address)
NODES = {"node-a": ("fs-a", "198.18.40.1"), "node-b": ("fs-b", "198.18.40.2"),
         "node-c": ("fs-c", "198.18.40.3")}
# node-b's PCIe and NIC come from a fixture tree (this host has no fabric
# NIC): its exporter reads a copy of tests/fixtures/pcie-x4-slot.
FIXTURE_NODE = "node-b"
# A second link between node-a and node-b (a management or slower NIC) that a
# bad route can send fabric traffic through.
SIDE = ("fs-a1", "198.18.41.1", "fs-b1", "198.18.41.2")
# The fabric's own ceiling: every node's egress is shaped to this rate, so
# probes measure the link and not this (shared, small) host's CPU.
LINE_RATE = "400mbit"
# A shaped-down node, and the second link: a quarter of the line.
SLOW_RATE, SLOW_BURST = "100mbit", "64kb"
SECRET = "0123456789abcdef0123456789abcdef"

CONFIG = """
fleet:
  self: {self}
  nodes:
{nodes}
probes:
  secret_file: {secret}
  state_file: ""
  max_splay: 0s
  skip_when_busy_fraction: 0
  path: {{interval: 1s, echo_timeout: 1s}}
  budget: {budget}
  tcp: {{round: {round}, duration: 1s, warmup: 300ms, streams: 2, single_stream: false,
         single_stream_every: 1, calibration: {{candidate: 200ms}}}}
collectors:
  netdev: {{interfaces: [{iface}]}}
{extra}"""

PCIE_CONFIG = """  pcie:
    pci_ids_file: {fixtures}/pci.ids
    config_space_dump: {fixtures}/pcie-x4-slot/lspci-xxxx.txt
"""


def netns_exec(ns, *args, check=True):
    return subprocess.run(["ip", "netns", "exec", ns, *args], check=check, capture_output=True,
                          text=True)


class Fabric:
    """Builds the namespaces and configs; `close()` removes everything."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.exporters = {}
        self.sysfs = os.path.join(tmp, "node-b-sys")

    def build(self):
        bridge_fabric(HUB, BRIDGE, HUB_ADDRESS, NODES.values(), IFACE, MTU, "fs-p")
        for ns, _ in NODES.values():
            # Socket buffers hold the bandwidth-delay product of the fastest
            # NIC in the fleet (node-b's 200 GbE).
            tune_socket_buffers(ns)
            self.shape(ns, LINE_RATE)
        a, b = NODES["node-a"][0], NODES["node-b"][0]
        ip("link", "add", SIDE[0], "mtu", str(MTU), "netns", a, "type", "veth", "peer", "name",
           SIDE[2], "mtu", str(MTU), "netns", b)
        for ns, dev, addr in ((a, SIDE[0], SIDE[1]), (b, SIDE[2], SIDE[3])):
            ip("-n", ns, "addr", "add", addr + "/30", "dev", dev)
            ip("-n", ns, "link", "set", dev, "up")
            self.shape(ns, SLOW_RATE, SLOW_BURST, dev)
        self._write_configs()
        self._build_fixture_sysfs()

    @staticmethod
    def shape(ns, rate, burst="256kb", dev=IFACE):
        """TBF on a node's egress. The queue holds 5 ms at `rate` plus `burst`:
        enough that TCP rarely overflows it (a steady, lossless rate), short
        enough that the RTT stays a switch's: at 100 Mbit/s with a 64 KiB burst
        it adds at most 10 ms, far below what the socket buffers cover."""
        netns_exec(ns, "tc", "qdisc", "replace", "dev", dev, "root", "tbf", "rate", rate,
                   "burst", burst, "latency", "5ms")

    @staticmethod
    def shape_path(ns, dst, rate, burst, dev=IFACE):
        """A TBF on one path only: packets to `dst` leave through a `rate` TBF,
        everything else through the line's, as a per-destination tc rule or a
        policer on one switch port would. HTB only classifies here (its classes
        never bind); `shape(ns, LINE_RATE)` undoes it."""
        tc = ("ip", "netns", "exec", ns, "tc")
        for args in (("qdisc", "replace", "dev", dev, "root", "handle", "1:", "htb", "default", "2"),
                     *(("class", "add", "dev", dev, "parent", "1:", "classid", c, "htb", "rate",
                        "10gbit", "quantum", "65536") for c in ("1:1", "1:2")),
                     ("qdisc", "add", "dev", dev, "parent", "1:1", "tbf", "rate", rate, "burst",
                      burst, "latency", "5ms"),
                     ("qdisc", "add", "dev", dev, "parent", "1:2", "tbf", "rate", LINE_RATE,
                      "burst", "256kb", "latency", "5ms"),
                     ("filter", "add", "dev", dev, "parent", "1:", "protocol", "ip", "prio", "1",
                      "u32", "match", "ip", "dst", dst + "/32", "flowid", "1:1")):
            r = subprocess.run([*tc, *args], capture_output=True, text=True)
            if r.returncode:
                raise RuntimeError(f"tc {' '.join(args)}: {r.stderr.strip()} (this kernel needs "
                                   "sch_htb, sch_tbf and cls_u32)")

    # Calibration and the flows collector are on, as shipped. The fault cases:
    # 7-second rounds, the least that holds the calibrated rung (2 directions x
    # (1.3 s + 6 candidates x 0.2 s) + 2 s), leave no room after the rung for a
    # comparison run (it needs its expected time + 2 s of the round). The
    # comparison case restarts the nodes with COMPARISON_ROUND and the whole
    # hour as budget, so a pair's first meeting after its calibration runs
    # tcp_multi_copy.
    FAULT_ROUND = "7s"
    COMPARISON_ROUND = "12s"

    def _write_configs(self, round=FAULT_ROUND, budget=0.05):
        self.configs = write_fleet_configs(
            self.tmp, CONFIG, NODES, IFACE, MTU, SECRET, round=round, budget=budget,
            extra=lambda name: PCIE_CONFIG.format(fixtures=FIXTURES) if name == FIXTURE_NODE
            else "")

    # The fixture has two 200 GbE cards: 01:00.0 in a CPU x16 slot and 02:00.0
    # in a chipset slot wired x4. The copy names the x16 card's port fab0 (the
    # fleet interface); `move_nic_to_x4_slot` makes fab0 the x4 card's port,
    # as if the card had been moved, and `move_nic_back` undoes it.
    X16 = "devices/pci0000:00/0000:00:01.0/0000:01:00.0/net"
    X4 = "devices/pci0000:00/0000:00:1c.0/0000:02:00.0/net"

    def _build_fixture_sysfs(self):
        shutil.copytree(os.path.join(FIXTURES, "pcie-x4-slot", "sys"), self.sysfs, symlinks=True)
        self._rename_port(self.X16, "enp1s0np0", IFACE)

    def _rename_port(self, device_net, old, new):
        os.rename(os.path.join(self.sysfs, device_net, old),
                  os.path.join(self.sysfs, device_net, new))
        os.unlink(os.path.join(self.sysfs, "class", "net", old))
        os.symlink(os.path.join("..", "..", device_net, new),
                   os.path.join(self.sysfs, "class", "net", new))

    def move_nic_to_x4_slot(self):
        self._rename_port(self.X16, IFACE, "enp1s0np0")
        self._rename_port(self.X4, "enp2s0np0", IFACE)

    def move_nic_back(self):
        self._rename_port(self.X4, IFACE, "enp2s0np0")
        self._rename_port(self.X16, "enp1s0np0", IFACE)

    def start_exporters(self):
        for name, (ns, address) in NODES.items():
            args = ["--config.file=" + self.configs[name],
                    f"--web.listen-address={address}:{PORT}"]
            if name == FIXTURE_NODE:
                args.append("--path.sysfs=" + self.sysfs)
            self.exporters[name] = Exporter(*args, netns=ns).__enter__()

    def restart_for_comparisons(self):
        """Every node again, with rounds that fit a comparison run after the rung."""
        for e in self.exporters.values():
            e.__exit__(None, None, None)
        self.exporters = {}
        self._write_configs(round=self.COMPARISON_ROUND, budget=1)
        self.start_exporters()

    def close(self):
        for e in self.exporters.values():
            e.__exit__(None, None, None)
        for ns, _ in NODES.values():
            kill_namespace_processes(ns)
            ip("netns", "del", ns, check=False)

