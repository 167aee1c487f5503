#!/usr/bin/env python3
"""fabric_probe rdma on a host without RDMA: a clear answer and exit status 9,
never a crash or a number; usage errors exit 2. Skips (77) where
/sys/class/infiniband has devices (tests/hw/ covers those hosts)."""
import json
import os
import subprocess
import sys
import tempfile

PROBE = os.environ["FABRIC_PROBE"]


def run(*args):
    p = subprocess.run([PROBE, "rdma", *args], capture_output=True, text=True, timeout=30)
    return p.returncode, p.stdout, p.stderr


def main():
    ib = "/sys/class/infiniband"
    if os.path.isdir(ib) and os.listdir(ib):
        print("SKIP: this host has RDMA devices; see tests/hw/rdma_hw_test.py")
        return 77
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)

    with tempfile.TemporaryDirectory() as d:
        secret = os.path.join(d, "secret")
        with open(secret, "w") as f:
            f.write("cli-test-secret-0123456789\n")
        os.chmod(secret, 0o600)

        rc, out, _ = run("--help")
        check(rc == 0 and "--tx-depth" in out and "9 no RDMA device" in out, "--help")

        rc, _, err = run("--peer", "127.0.0.1", "--secret-file", secret, "--qps", "0")
        check(rc == 2 and "--qps" in err, f"--qps 0 -> {rc} {err!r}")
        rc, _, err = run("--secret-file", secret)
        check(rc == 2 and "--peer" in err, f"no --peer -> {rc} {err!r}")
        rc, _, err = run("--peer", "127.0.0.1", "--secret-file", secret, "--size", "2G")
        check(rc == 2 and "--size" in err, f"--size 2G -> {rc} {err!r}")

        p = subprocess.run([PROBE, "serve", "--allow", "127.0.0.1/32", "--secret-file", secret,
                            "--rdma-max-region", "lots"], capture_output=True, text=True,
                           timeout=30)
        check(p.returncode == 2 and "--rdma-max-region" in p.stderr,
              f"serve --rdma-max-region lots -> {p.returncode} {p.stderr!r}")

        # Port 1 has nobody listening: the local check must answer first.
        rc, out, err = run("--peer", "127.0.0.1:1", "--secret-file", secret, "--json")
        check(rc == 9, f"no device: exit {rc}, want 9 ({err!r})")
        check("no RDMA device" in err, f"stderr says why: {err!r}")
        try:
            doc = json.loads(out)
            check(doc["error"]["kind"] == "no-device", f"json kind: {out!r}")
        except (ValueError, KeyError) as e:
            failures.append(f"json error document: {e}: {out!r}")

        rc, out, err = run("--peer", "127.0.0.1:1", "--secret-file", secret, "--device", "mlx5_0")
        check(rc == 9 and out == "", f"--device on a host without RDMA: {rc} {out!r} {err!r}")

    for f in failures:
        print("FAIL:", f)
    print("ok" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
