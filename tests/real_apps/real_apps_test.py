#!/usr/bin/env python3
"""Real transfers named right (issue 41; tests/README.md, layer 10): real
sshd, ssh, scp, rsync (over ssh and to a daemon), scp once per file,
dd | socat and a healthy parallel mover (iperf3 with sendfile) from node-a to
node-b, two namespaces on a bridge (MTU 9000, egress shaped to 3 Gbit/s),
each with a fabric_exporter with default settings (calibration and the flows
collector on, probes scheduled for the two nodes), and a real Prometheus
scraping them every second with the shipped rule bundle, only its `for:`
durations shortened (tests/real_apps/real_apps_rules.jsonnet).

First the idle fleet, then one case at a time. Each capped case first
measures the application's own ceiling on this host under a CPU cap, sets the
cap so the application runs near a tenth of the line (the field's relation:
ssh at 8% of the proven rung), and checks that relation against the rung the
probes proved before it judges anything. Per case the test checks its
premises (the transfer ran and moved bytes at the measured ratio, node-a's
exporter saw the bulk flow with the right `application` label and node-b's
as `remote_sender`), then the exact set of alerts that fired and the words of
node-a's ladder page (EXPECTED below).

EXPECTED is the behaviour issue 41 asks for, asserted for every case.

Runs as root (namespaces, tc, cgroups); exits 77 (skipped) otherwise or when
a tool is missing (scripts/setup-deps --test installs them).
"""
import sys

TOOLS = ("prometheus", "promtool", "jsonnet", "tc", "curl", "ip", "/usr/sbin/sshd", "ssh", "scp",
         "ssh-keygen", "rsync", "socat", "iperf3", "dd")

if __name__ == "__main__":
    from nodes import HUB, NODES
    from fabric_testlib.netns import hub_test_main
    sys.exit(hub_test_main(__file__, "the real_apps test (and its cpu cgroup)", TOOLS, HUB,
                           [ns for ns, _ in NODES.values()],
                           lambda: __import__("real_apps_cases").RealAppsTest))
