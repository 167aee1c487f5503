#!/usr/bin/env python3
"""The whole stack, as users run it (tests/README.md, layer 9): three
fabric_exporter nodes in network namespaces on a bridge, probing each other
with the fleet config; a real Prometheus scraping them every second with the
rule bundle (the mixin, `for:` durations shortened through its _config); a
real Alertmanager routed by deploy/examples/alertmanager.yml notifying a
webhook this test runs.

A healthy fabric notifies nothing. Then one fault at a time, each made for
real: the matching alerts, and no others, reach the webhook with the right
labels within a bound, and resolve once the fault is removed.

Runs as root (namespaces, tc); exits 77 (skipped) otherwise or when
prometheus, prometheus-alertmanager, promtool, jsonnet, tc or curl is missing.
"""
import sys


TOOLS = ("prometheus", "prometheus-alertmanager", "promtool", "jsonnet", "tc", "curl", "ip")
# Seconds a fault may take from injection to its notification: probe interval
# (path 1 s, TCP plan round 7 s, a pair every few rounds) + scrape 1 s + rule
# evaluation 1 s + `for: 8s` + Alertmanager group_wait 1 s, with room for a
# busy 2-core CI host.
FIRE_WITHIN = 75
RESOLVE_WITHIN = 75
BASELINE_SECONDS = 25


if __name__ == "__main__":
    from fabric import HUB, NODES
    from fabric_testlib.netns import hub_test_main
    sys.exit(hub_test_main(__file__, "the stack test", TOOLS, HUB,
                           [ns for ns, _ in NODES.values()],
                           lambda: __import__("stack_cases").StackTest))
