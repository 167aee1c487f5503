#!/usr/bin/env python3
"""bench/tcp_probe_vs_iperf3.py --combine reports the cells of independent invocations side by
side and flags a cell whose invocations disagree on which tool is ahead (issue 45: a result
that holds in one run and not the next is not yet a result). Runs no benchmark: the rows of
two invocations are written here, as their --json files hold them."""
import json
import os
import subprocess
import sys
import tempfile

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
BENCH = os.path.join(SOURCE_DIR, 'bench', 'tcp_probe_vs_iperf3.py')


def rows(copy_ratio, copy_1m_ratio):
    """Three runs per tool on veth at 1 stream: the probe at `ratio` of iperf3's rate, with
    9% less CPU per byte."""
    out = []
    for run in (1, 2, 3):
        for probe, reference, ratio in (('probe copy 128K', 'iperf3 ', copy_ratio),
                                        ('probe copy 1M', 'iperf3 -l 1M', copy_1m_ratio)):
            common = dict(path='veth', streams=1, run=run, load='0.1 0.1 0.1', others=0.01)
            out.append(dict(common, tool=probe, rate=10e9 * ratio, cpu_per_gb=1.0))
            out.append(dict(common, tool=reference, rate=10e9, cpu_per_gb=1.1))
    return out


def main():
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i, figures in enumerate(((1.05, 0.82), (0.95, 0.84))):
            files.append(os.path.join(tmp, f'run{i}.json'))
            with open(files[-1], 'w') as f:
                json.dump(rows(*figures), f)
        r = subprocess.run([sys.executable, BENCH, '--cells', 'copy,copy-1M', '--paths', 'veth',
                            '--streams', '1', '--combine', *files],
                           capture_output=True, text=True, timeout=30)
    lines = {line.split(' | ')[2]: line for line in r.stdout.splitlines()
             if line.startswith('| veth | 1 |')}
    problems = []
    if r.returncode != 0:
        problems.append(f'exit {r.returncode}: {r.stderr.strip()[-300:]}')
    # copy: ahead in one invocation, split in the other: flagged.
    if 'DISAGREE (fabric_probe, split)' not in lines.get('copy', ''):
        problems.append(f'copy not flagged: {lines.get("copy")}')
    if '1.05x | 0.91x | 0.95x | 0.91x' not in lines.get('copy', ''):
        problems.append(f'copy figures: {lines.get("copy")}')
    # copy-1M: behind in both (0.82x, 0.84x throughput; less CPU per byte): split, agreed.
    if not lines.get('copy-1M', '').endswith('| split |'):
        problems.append(f'copy-1M: {lines.get("copy-1M")}')
    if '1 cell(s) where the runs disagree.' not in r.stdout:
        problems.append('the count of disagreeing cells is missing:\n' + r.stdout)
    for p in problems:
        print('FAIL: ' + p)
    if not problems:
        print('ok: independent invocations side by side, the disagreeing cell flagged')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
