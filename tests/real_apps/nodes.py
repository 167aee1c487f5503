"""The real_apps test's fabric: two nodes in network namespaces on one bridge
(MTU 9000), each egress shaped to the line with TBF, each with a
fabric_exporter whose config is the default one (calibration on, the flows
collector on, the shipped probe plan) with the fleet of the two nodes and
only the probes' timings shortened so that the rungs exist within a minute.
The bridge and Prometheus live in a hub namespace, where the test runs."""
import subprocess

from fabric_testlib.exporter_process import Exporter, write_fleet_configs
from fabric_testlib.netns import bridge_fabric, ip, kill_namespace_processes, tune_socket_buffers

HUB = "ra-hub"
BRIDGE = "ra-br0"
HUB_ADDRESS = "198.18.62.254"
IFACE = "fab0"
MTU = 9000
PORT = 9877
# name: (namespace, fabric address); node-a sends every transfer to node-b.
NODES = {"node-a": ("ra-a", "198.18.62.1"), "node-b": ("ra-b", "198.18.62.2")}
# The fabric's ceiling: every node's egress is shaped to it, so the probes and
# the healthy mover measure the line and not this small host's CPU. The
# exporters read the veth's 10 Gbit/s as the line rate, and the bundle judges
# real transfers once they move 1% of it (12.5 MB/s): at 3 Gbit/s the capped
# programs (TARGET of the rung, ~26 MB/s) sit twice above that floor.
LINE_RATE = "3gbit"
SECRET = "0123456789abcdef0123456789abcdef"

# Defaults everywhere (calibration, flows, streams, budget, busy skip), except
# what makes a test of minutes (the page's transfer window is the 15 s the
# test's rules judge over, real_apps_rules.jsonnet): rounds of 12 s (the shortest that holds the
# calibrated rungs: 2 rungs x 2 directions x (1.3 s + 6 x 0.2 s) + 2 s), the
# single-stream rung at every meeting, no start-up splay, no state file, the
# route and jumbo-frame check every second (1 s echo timeout). The check runs
# as often against the test's `for: 8s` as the shipped 1 min against 15 min:
# one echo lost in a queue the probe or the mover fills (this test's TBF
# drops it) is one sample of several, not the whole `for:`.
CONFIG = """
fleet:
  self: {self}
  nodes:
{nodes}
probes:
  secret_file: {secret}
  state_file: ""
  max_splay: 0s
  path: {{interval: 1s, echo_timeout: 1s}}
  tcp: {{round: 12s, duration: 1s, warmup: 300ms, single_stream_every: 1,
         calibration: {{candidate: 200ms}}}}
collectors:
  netdev: {{interfaces: [{iface}]}}
  flows: {{window: 15s}}
"""


def netns_exec(ns, *args, check=True):
    return subprocess.run(["ip", "netns", "exec", ns, *args], check=check, capture_output=True,
                          text=True)


class Nodes:
    """Builds the namespaces and configs and starts the exporters; `close()`
    removes everything but the hub (the caller's)."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.exporters = {}

    def build(self):
        bridge_fabric(HUB, BRIDGE, HUB_ADDRESS, NODES.values(), IFACE, MTU, "ra-p")
        for ns, _ in NODES.values():
            # Socket buffers for the veth's 10 Gbit/s (the exporter's line
            # rate) at a full queue's round trip (see the helper for the
            # kernels that keep the host's net.core limits).
            tune_socket_buffers(ns)
            # TBF holding 1 ms at the line rate: a steady, lossless line whose full
            # queue keeps the round trip short enough that the veth's 10 Gbit/s
            # times it stays under the 4 MiB socket buffers (a full 5 ms queue
            # raised FabricSocketBufferBelowBdp on the healthy mover).
            netns_exec(ns, "tc", "qdisc", "replace", "dev", IFACE, "root", "tbf", "rate",
                       LINE_RATE, "burst", "256kb", "latency", "1ms")
        self.configs = write_fleet_configs(self.tmp, CONFIG, NODES, IFACE, MTU, SECRET)

    def start_exporters(self):
        for name, (ns, address) in NODES.items():
            self.exporters[name] = Exporter("--config.file=" + self.configs[name],
                                            f"--web.listen-address={address}:{PORT}",
                                            netns=ns).__enter__()

    def close(self):
        for e in self.exporters.values():
            e.__exit__(None, None, None)
        for ns, _ in NODES.values():
            kill_namespace_processes(ns)
            ip("netns", "del", ns, check=False)
