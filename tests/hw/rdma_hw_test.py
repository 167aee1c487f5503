#!/usr/bin/env python3
"""RDMA WRITE probe on real hardware: a responder and the probe on this host,
over the first active RDMA port's own IP address (the adapter loops the
traffic back). Checks the result is positive and consistent with the port
counters. Skips (77) without an active RDMA port or an IPv4 address on its
interface.

Run:  ctest --test-dir build -L hw --output-on-failure
Env:  FABRIC_PROBE (set by ctest), RDMA_HW_DURATION (default 3s).
"""
import json
import os
import subprocess
import sys
import tempfile
import time

from fabric_testlib.rdma_devices import first_active_port, ipv4_of

PORT = 19878


def main():
    probe = os.environ["FABRIC_PROBE"]
    found = first_active_port()
    if not found:
        print("SKIP: no RDMA device with an active RoCE port")
        return 77
    dev, port, netdev = found
    ip = ipv4_of(netdev)
    if not ip:
        print(f"SKIP: {dev} port {port} is on {netdev}, which has no IPv4 address")
        return 77
    duration = os.environ.get("RDMA_HW_DURATION", "3s")
    with tempfile.TemporaryDirectory() as d:
        secret = os.path.join(d, "secret")
        with open(secret, "w") as f:
            f.write("rdma-hw-test-secret-0123456789\n")
        os.chmod(secret, 0o600)
        serve = subprocess.Popen([probe, "serve", "--listen", f"{ip}:{PORT}", "--allow",
                                  f"{ip}/32", "--secret-file", secret],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            time.sleep(0.5)
            p = subprocess.run([probe, "rdma", "--peer", f"{ip}:{PORT}", "--secret-file",
                                secret, "--duration", duration, "--warmup", "1s", "--json"],
                               capture_output=True, text=True, timeout=120)
        finally:
            serve.terminate()
            serve.wait(timeout=10)
    print(p.stdout)
    print(p.stderr, file=sys.stderr)
    if p.returncode != 0:
        print(f"FAIL: fabric_probe rdma exited {p.returncode}")
        return 1
    r = json.loads(p.stdout)
    failures = []
    if not r["bytes_per_second"] > 0:
        failures.append("bandwidth is not positive")
    if r["port"]["device"] != dev:
        failures.append(f"probe used {r['port']['device']}, expected {dev}")
    if min(q["bytes_per_second"] for q in r["per_qp_bytes_per_second"]["each"]) <= 0:
        failures.append("a QP moved nothing")
    link = r["port"]["link_bits_per_second"]
    if link and r["bytes_per_second"] * 8 > link * 1.02:
        failures.append(f"{r['bytes_per_second'] * 8:.3g} bit/s exceeds the port's {link:.3g}")
    tx = r["counters"]["local"]["xmit_bytes"]
    if tx:
        # The adapter counted the traffic: it must agree with the completions.
        if not r["self_checks"]["counters_consistent"]:
            failures.append(f"port_xmit_data {tx} disagrees with {r['bytes']} bytes completed")
    else:
        print("note: port_xmit_data did not move (adapter-internal loopback); "
              "counter cross-check not possible on loopback")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
