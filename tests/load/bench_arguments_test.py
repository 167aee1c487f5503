#!/usr/bin/env python3
"""The benchmarks in bench/ refuse a missing binary or directory up front,
with exit status 2 and an error that names the flag or the path (and for
fabric_probe how to build it, for many_core_tcp.sh where to put it): before, a missing build/bin/fabric_probe first
showed as "nothing listening on port 19878" some seconds into the run. Runs
nothing else (the benchmarks themselves are run by hand: docs/performance.md).
"""
import os
import subprocess
import sys

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
PROBE = os.environ['FABRIC_PROBE']
MISSING = '/nonexistent/fabric_probe'
CASES = [
    (['tcp_probe_vs_iperf3.py', '--probe', MISSING],
     f'--probe {MISSING}: no such executable (build it:'),
    (['tcp_probe_vs_iperf3.py', '--probe', PROBE, '--iperf3', '/nonexistent/iperf3'],
     '--iperf3 /nonexistent/iperf3: no such executable'),
    (['tcp_probe_vs_iperf3.py', '--probe', PROBE, '--neper', '/nonexistent/neper'],
     '--neper /nonexistent/neper: no such executable'),
    (['storage_vs_fio.py', '--path', '/tmp', '--probe', MISSING],
     f'--probe {MISSING}: no such executable (build it:'),
    (['storage_vs_fio.py', '--path', '/nonexistent/dir', '--probe', PROBE],
     '--path /nonexistent/dir: no such directory'),
    (['exporter_overhead.py', '--exporter', '/nonexistent/fabric_exporter'],
     '--exporter /nonexistent/fabric_exporter: no such executable (build it:'),
    (['many_core_tcp.sh'], 'usage: '),
    # A tools folder without the binaries: nothing is run, nothing written.
    (['many_core_tcp.sh', '/nonexistent/tools', '/nonexistent/out'],
     '/nonexistent/tools/fabric_probe: no such executable (copy it into TOOLS)'),
]


def main():
    failures = []
    for args, want in CASES:
        script, rest = os.path.join(SOURCE_DIR, 'bench', args[0]), args[1:]
        runner = [] if script.endswith('.sh') else [sys.executable]
        r = subprocess.run([*runner, script, *rest], capture_output=True, text=True,
                           timeout=30, env={k: v for k, v in os.environ.items()
                                            if k != 'PYTHONPATH'})
        if r.returncode != 2 or want not in r.stderr:
            failures.append(f'{" ".join(args)}: exit {r.returncode}, want 2 with {want!r}; '
                            f'stderr: {r.stderr.strip()[-300:]}')
    for f in failures:
        print('FAIL: ' + f)
    if not failures:
        print(f'ok: {len(CASES)} missing binaries and paths named up front')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
