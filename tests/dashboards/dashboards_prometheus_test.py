#!/usr/bin/env python3
"""Every dashboard query, evaluated by a real Prometheus.

Three real fabric_exporter processes (node-a, node-b, node-c of one fleet) run
in two racks and two planes, on a fixture tree built from the committed ones
(fabric_testlib.fixture_fleet: sysfs of tests/fixtures/pcie-healthy with the
NIC attributes and recorded ethtool statistics of tests/fixtures/nics, procfs
of tests/fixtures/h200: softnet, TCP, socket-buffer sysctls; with the NFS mounts and NVMe-oF
controllers of tests/fixtures/nfs-rdma, their servers and targets renamed to node-b over RDMA
and node-c over TCP; with the nics tree's RDMA port on mlx5_0 and its recorded RDMA netlink
dumps). Each replays
the nics tree's recorded probe results (probes.recording) with the targets
renamed so each node probes the other two; node-b also replays the h200 flows recording, its
peers' addresses being that recording's. A real Prometheus (Debian's) scrapes
them every second as job "fabric" with the rule bundle loaded; once every
exporter is up, every panel query, variable query and annotation query is
evaluated through the HTTP API, pass after pass until each that should have
series has them (90 s at most). Each must evaluate without error, and return
series unless the dashboard source marks it noDataOnFixtures (a marked query
that returns series in any pass fails too: drop the mark).

Exits 77 (skipped) when prometheus is not installed. --verbose prints each
query's series, for reviewing what the panels show.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

from fabric_testlib import listening
from fabric_testlib.dashboards import evaluate, hidden, load, substitute, targets, variable_queries
from fabric_testlib.exporter_process import FIXTURES, SOURCE_DIR, Exporter
from fabric_testlib.fixture_fleet import (PROMETHEUS, build_tree, exporter_config,
                                          recorded_results, write_recording)

NODES = {  # node-b is the h200 flows recording's host; two racks, two planes
    'node-a': {'address': '192.0.2.21', 'rack': 'r1', 'plane': 'p0', 'role': 'compute'},
    'node-b': {'address': '192.0.2.10', 'rack': 'r1', 'plane': 'p1', 'role': 'compute'},
    'node-c': {'address': '192.0.2.23', 'mtu': 1500, 'rack': 'r2', 'plane': 'p0',
               'role': 'storage'},
}
def recording(tmp, node):
    """The nics tree's recorded results as `node` sees them: node-a's targets
    with `node` and node-a swapped."""
    state = recorded_results()
    swap = {node: 'node-a', 'node-a': node}
    for r in state['results']:
        r['target'] = swap.get(r['target'], r['target'])
    return write_recording(tmp, node, state)


# The nfs-rdma tree's NFS servers and NVMe-oF targets as fleet nodes.
STORAGE_RENAMES = (('storage1:/backup', 'node-b:/backup'), ('10.10.0.21:/scratch', '192.0.2.23:/scratch'),
                   ('traddr=10.10.0.20', 'traddr=' + NODES['node-b']['address']),
                   ('traddr=10.10.0.21', 'traddr=' + NODES['node-c']['address']))


def renamed_copy(src, dst):
    with open(src) as f:
        text = f.read()
    for old, new in STORAGE_RENAMES:
        text = text.replace(old, new)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(dst, 'w') as f:
        f.write(text)


def add_storage_clients(tmp, sys_dir):
    """h200's procfs with nfs-rdma's mountstats, nfs-rdma's NVMe-oF controllers in sys_dir
    and its fstab, each renamed to the fleet; the procfs path."""
    src = os.path.join(FIXTURES, 'nfs-rdma')
    procfs = os.path.join(tmp, 'proc')
    shutil.copytree(os.path.join(FIXTURES, 'h200', 'proc'), procfs)
    renamed_copy(os.path.join(src, 'proc', 'self', 'mountstats'), os.path.join(procfs, 'self', 'mountstats'))
    renamed_copy(os.path.join(src, 'fstab'), os.path.join(tmp, 'fstab'))
    ctl = os.path.join('devices', 'virtual', 'nvme-fabrics', 'ctl')
    shutil.copytree(os.path.join(src, 'sys', ctl), os.path.join(sys_dir, ctl))
    for name in os.listdir(os.path.join(sys_dir, ctl)):
        renamed_copy(os.path.join(src, 'sys', ctl, name, 'address'), os.path.join(sys_dir, ctl, name, 'address'))
        os.makedirs(os.path.join(sys_dir, 'class', 'nvme'), exist_ok=True)
        os.symlink(os.path.join('..', '..', ctl, name), os.path.join(sys_dir, 'class', 'nvme', name))
    return procfs


def add_rdma_ports(sys_dir, procfs):
    """The nics tree's mlx5_0 port (state, rate, counters) on the fleet tree's mlx5_0, and the
    comm files of the processes its recorded RDMA netlink dumps name."""
    device = os.path.realpath(os.path.join(sys_dir, 'class', 'infiniband', 'mlx5_0'))
    shutil.copytree(os.path.join(FIXTURES, 'nics', 'sys', 'class', 'infiniband', 'mlx5_0', 'ports'),
                    os.path.join(device, 'ports'))
    nics_proc = os.path.join(FIXTURES, 'nics', 'proc')
    for pid in os.listdir(nics_proc):
        if pid.isdigit():
            shutil.copytree(os.path.join(nics_proc, pid), os.path.join(procfs, pid), dirs_exist_ok=True)


def config(tmp, node):
    flows = f'  nfs:\n    requested_options_file: {os.path.join(tmp, "fstab")}\n'
    # nfs-rdma's NCCL measurements (Inspector textfiles, nccl-tests JSON), their dates kept.
    flows += (f'  collective:\n    directory: {os.path.join(FIXTURES, "nfs-rdma", "nccl")}\n'
              '    max_age: 36500d\n')
    flows += f'  rdma:\n    restrack_recording: {os.path.join(FIXTURES, "nics", "rdma-netlink")}\n'
    if node == 'node-b':
        flows += (f'  flows:\n    interfaces: [eth0]\n'
                 f'    recording: {os.path.join(FIXTURES, "h200", "flows.rec")}\n')
    return exporter_config(tmp, node, NODES, recording(tmp, node), flows)


VERBOSE = '--verbose' in sys.argv


def query(base, expr, show=False):
    """(number of series, error or None)."""
    r = evaluate(base, expr)
    if r['error']:
        return 0, r['error']
    if show and VERBOSE:
        print('  ' + substitute(expr))
        for s in r['series']:
            print(f'    {s["metric"]} {s["value"][1]}')
    return len(r['series']), None


def wait_for(base, exprs, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(query(base, e)[0] for e in exprs):
            return True
        time.sleep(0.5)
    return False


def check(base, dashboards, marks, flagged):
    """One pass over every panel, variable and annotation query: (failures,
    queries checked, marked queries empty as marked, whether any failure is an
    expected series not there yet). `flagged` collects the marked queries that
    returned series in any pass, so a mark is caught whenever it is wrong."""
    failures, checked, empty_ok, waiting = [], 0, 0, False
    for name, title, t, m in targets(dashboards, marks):
        if VERBOSE:
            print(f'{name} {title!r} {t["refId"]}')
        n, error = query(base, t['expr'], show=True)
        checked += 1
        where = f'{name} {title!r} {t["refId"]}'
        if error:
            failures.append(f'{where}: {error}\n    {substitute(t["expr"])}')
        elif m['noData'] is None and n == 0:
            waiting = True
            failures.append(f'{where}: no series on the test fleet\n    {substitute(t["expr"])}')
        elif m['noData'] is not None and n > 0:
            flagged.add(f'{where}: marked noDataOnFixtures ({m["noData"]}) but returns '
                        f'{n} series: remove the mark')
        elif m['noData'] is not None:
            empty_ok += 1
    for name, d in dashboards.items():
        for vname, selector, _ in variable_queries(d):
            n, error = query(base, selector)
            checked += 1
            if error or n == 0:
                waiting = waiting or not error
                failures.append(f'{name} variable {vname}: {error or "no values"}')
        for a in d.get('annotations', {}).get('list', []):
            if 'expr' in a:
                checked += 1
                _, error = query(base, a['expr'])
                if error:
                    failures.append(f'{name} annotation {a["name"]}: {error}')
    return failures + sorted(flagged), checked, empty_ok, waiting


def main():
    if not PROMETHEUS:
        print('prometheus not installed (scripts/setup-deps --test): skipped')
        return 77
    dashboards = load(SOURCE_DIR)
    marks = hidden(SOURCE_DIR)
    tmp = tempfile.mkdtemp(prefix='dashboards-prom-')
    exporters, prom = [], None
    try:
        sys_dir = build_tree(tmp)
        procfs = add_storage_clients(tmp, sys_dir)
        add_rdma_ports(sys_dir, procfs)
        for node in NODES:
            e = Exporter('--path.procfs=' + procfs, '--path.sysfs=' + sys_dir,
                         '--config.file=' + config(tmp, node))
            exporters.append(e.__enter__())
        prom_cfg = os.path.join(tmp, 'prometheus.yml')
        scrape = ', '.join("'%s'" % urllib.parse.urlsplit(e.base_url).netloc for e in exporters)
        with open(prom_cfg, 'w') as f:
            f.write('global: {scrape_interval: 1s, evaluation_interval: 1s}\n'
                    f"rule_files: ['{os.path.join(SOURCE_DIR, 'rules', 'fabric-ladder.rules.yml')}']\n"
                    f"scrape_configs:\n- job_name: fabric\n  static_configs:\n  - targets: [{scrape}]\n")

        def launch(port):
            with open(os.path.join(tmp, 'prometheus.log'), 'w') as log:
                return subprocess.Popen([PROMETHEUS, '--config.file=' + prom_cfg,
                                         '--storage.tsdb.path=' + os.path.join(tmp, 'tsdb'),
                                         f'--web.listen-address=127.0.0.1:{port}'],
                                        stdout=log, stderr=subprocess.STDOUT)
        try:
            prom, port = listening.start(launch, 'prometheus')
        except RuntimeError as e:
            with open(os.path.join(tmp, 'prometheus.log')) as f:
                print(f.read()[-3000:])
            print(f'FAIL: {e}')
            return 1
        base = f'http://127.0.0.1:{port}'
        # First the fleet itself: every exporter scraped, rates over a few
        # scrapes.
        if not wait_for(base, ['count(up{job="fabric"} == 1) == 3',
                               'count_over_time(fabric_tcp_segments_sent_total[15s]) > 3'],
                        timeout=60):
            with open(os.path.join(tmp, 'prometheus.log')) as f:
                print(f.read()[-3000:])
            print('FAIL: the fleet did not come up in Prometheus within 60 s')
            return 1
        # Then every query, again until each that should have series has them:
        # the rule groups evaluate independently, each at its own offset in
        # the interval, so a record built on another group's records (the
        # rack ladder on the node ladder on the layers) first appears some
        # evaluations after its inputs, and no fixed list of records to wait
        # for can name them all. A query still empty at the deadline fails.
        deadline = time.monotonic() + 90
        flagged = set()  # marked noDataOnFixtures, yet returned series once
        passes = 0
        while True:
            failures, checked, empty_ok, waiting = check(base, dashboards, marks, flagged)
            passes += 1
            if not waiting or time.monotonic() > deadline:
                break
            time.sleep(1)
        if failures:
            print('\n'.join('FAIL: ' + f for f in failures))
            return 1
        print(f'ok: {checked} queries evaluated by Prometheus against a 3-node fleet, '
              f'{empty_ok} marked as having no data on fixtures (pass {passes} found every '
              f'series in place)')
        return 0
    finally:
        if prom:
            prom.terminate()
            try:
                prom.wait(timeout=10)
            except subprocess.TimeoutExpired:
                prom.kill()
                prom.wait()
        for e in exporters:
            e.__exit__(None, None, None)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
