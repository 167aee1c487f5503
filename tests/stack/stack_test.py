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
import os
import shutil
import signal
import subprocess
import sys


TOOLS = ("prometheus", "prometheus-alertmanager", "promtool", "jsonnet", "tc", "curl", "ip")
INSIDE = "--inside-hub"
# Seconds a fault may take from injection to its notification: probe interval
# (path 1 s, TCP plan round 4 s, a pair every few rounds) + scrape 1 s + rule
# evaluation 1 s + `for: 4s` + Alertmanager group_wait 1 s, with room for a
# busy 2-core CI host.
FIRE_WITHIN = 75
RESOLVE_WITHIN = 75
BASELINE_SECONDS = 25


def skip(why):
    print("SKIP: " + why)
    raise SystemExit(77)


def outer():
    """In the initial namespace: make the hub namespace, run the test inside
    it, and remove every namespace whatever happened."""
    if os.geteuid() != 0:
        skip("the stack test needs root (network namespaces, tc)")
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        skip("missing " + ", ".join(missing) + " (scripts/setup-deps installs them)")
    try:
        import yaml  # noqa: F401
    except ImportError:
        skip("python3-yaml is not installed")
    from fabric import HUB, NODES, kill_namespace_processes
    from fabric_testlib.netns import ip
    namespaces = [HUB, *(ns for ns, _ in NODES.values())]
    # ctest's timeout sends SIGTERM: unwind through `finally` so nothing stays.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    for ns in namespaces:  # left by a run that was killed outright
        kill_namespace_processes(ns)
        ip("netns", "del", ns, check=False)
    ip("netns", "add", HUB)
    try:
        rc = subprocess.call(["ip", "netns", "exec", HUB, sys.executable, os.path.abspath(__file__),
                              INSIDE, *sys.argv[1:]])
    finally:
        for ns in namespaces:
            kill_namespace_processes(ns)
            ip("netns", "del", ns, check=False)
    return rc


def inside():
    import unittest
    from stack_cases import StackTest
    suite = unittest.TestLoader().loadTestsFromTestCase(StackTest)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == INSIDE:
        del sys.argv[1]
        sys.exit(inside())
    sys.exit(outer())
