"""A fleet of real fabric_exporter processes on fixture trees, and real
Prometheus servers over them (the dashboards and scale-out tests).

Every exporter runs on one tree built from the committed ones: sysfs of
tests/fixtures/pcie-healthy (PCIe path of the fabric NIC) with the NIC
attributes and recorded ethtool statistics of tests/fixtures/nics, procfs of
tests/fixtures/h200. Each replays the nics tree's recorded probe results
(probes.recording), whose peers node-b and node-c are renamed to the node's
own peers in the test's fleet.
"""
import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

from fabric_testlib import listening
from fabric_testlib.exporter_process import FIXTURES, SOURCE_DIR

PROMETHEUS = shutil.which('prometheus')
RULES = os.path.join(SOURCE_DIR, 'rules', 'fabric-ladder.rules.yml')
PROCFS = os.path.join(FIXTURES, 'h200', 'proc')


def build_tree(tmp):
    """pcie-healthy's sysfs with the nics tree's fabric NIC attributes, and
    the nics NIC's recorded PCIe link trace (a retrain to x8 and back between
    two scrapes) on the first NIC's function."""
    sys_dir = os.path.join(tmp, 'sys')
    shutil.copytree(os.path.join(FIXTURES, 'pcie-healthy', 'sys'), sys_dir, symlinks=True)
    for dev in ('ens1f0np0', 'ens1f1np1'):
        src = os.path.join(FIXTURES, 'nics', 'sys', 'class', 'net', dev)
        dst = os.path.realpath(os.path.join(sys_dir, 'class', 'net', dev))
        function = os.path.dirname(os.path.dirname(dst))
        # The `device` link marks a physical NIC; point it at pcie-healthy's function.
        os.symlink(os.path.relpath(function, dst), os.path.join(dst, 'device'))
        if dev == 'ens1f0np0':
            trace = os.path.join(os.path.realpath(os.path.join(src, 'device')), 'pcie_link.recorded')
            shutil.copy(trace, os.path.join(function, 'pcie_link.recorded'))
        for entry in os.listdir(src):
            if entry == 'device':
                continue
            s, d = os.path.join(src, entry), os.path.join(dst, entry)
            if os.path.isdir(s):
                shutil.copytree(s, d, dirs_exist_ok=True)
            else:
                shutil.copy(s, d)
    return sys_dir


def recorded_results():
    """The nics tree's recorded probe results (node-a probing node-b, node-c)."""
    with open(os.path.join(FIXTURES, 'nics', 'probes.rec.yml')) as f:
        return json.loads(''.join(l for l in f if not l.startswith('#')))


def write_recording(tmp, node, state):
    path = os.path.join(tmp, node + '.rec.json')
    with open(path, 'w') as f:
        json.dump(state, f)
    return path


def fleet_yaml(nodes, self_name):
    """The `fleet` section; nodes: {name: {address, mtu, rack, plane, role}}."""
    lines = []
    for name, n in nodes.items():
        keys = [f'name: {name}', f'address: {n["address"]}', 'interface: ens1f0np0',
                f'mtu: {n.get("mtu", 9000)}']
        keys += [f'{k}: {n[k]}' for k in ('rack', 'plane', 'role') if k in n]
        lines.append('    - {' + ', '.join(keys) + '}')
    return f'fleet:\n  self: {self_name}\n  nodes:\n' + '\n'.join(lines) + '\n'


def exporter_config(tmp, node, nodes, recording, flows=''):
    text = (f'collectors:\n{flows}'
            f'  pcie:\n    pci_ids_file: {os.path.join(FIXTURES, "pci.ids")}\n'
            f'    config_space_dump: {os.path.join(FIXTURES, "pcie-healthy", "lspci-xxxx.txt")}\n'
            + fleet_yaml(nodes, node) +
            f'probes:\n  path: {{enabled: false}}\n  recording: {recording}\n')
    path = os.path.join(tmp, node + '.yml')
    with open(path, 'w') as f:
        f.write(text)
    return path


def api(base, path, **params):
    url = base + path + ('?' + urllib.parse.urlencode(params) if params else '')
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        # A query error carries Prometheus' JSON error body; a server still
        # starting answers 503 with plain text. Both mean "not ready yet".
        body = e.read()
        try:
            return json.loads(body)
        except ValueError:
            return {'status': 'error', 'error': f'HTTP {e.code}: {body[:200]!r}'}
    except (urllib.error.URLError, ConnectionError) as e:  # not listening yet
        return {'status': 'error', 'error': str(e)}


class Prometheus:
    """A real Prometheus (Debian's) on a free loopback port; a context manager
    whose `port` and `base` are known once entered (it then listens there).
    agent=True runs it in agent mode (scrape and remote-write only)."""

    def __init__(self, tmp, name, config, agent=False, receiver=False):
        self.tmp, self.name, self.config = tmp, name, config
        self.agent, self.receiver = agent, receiver
        self.port = self.base = self.proc = None
        self.log_path = os.path.join(tmp, name + '.log')

    def __enter__(self):
        cfg = os.path.join(self.tmp, self.name + '.yml')
        with open(cfg, 'w') as f:
            f.write(self.config)
        data = os.path.join(self.tmp, self.name + '-data')

        def launch(port):
            args = [PROMETHEUS, '--config.file=' + cfg, f'--web.listen-address=127.0.0.1:{port}']
            if self.agent:
                args += ['--enable-feature=agent', '--storage.agent.path=' + data]
            else:
                args += ['--storage.tsdb.path=' + data]
            if self.receiver:
                args.append('--web.enable-remote-write-receiver')
            with open(self.log_path, 'w') as log:
                return subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        try:
            self.proc, self.port = listening.start(launch, f'prometheus {self.name}')
        except RuntimeError as e:
            raise RuntimeError(f'{e}; its log:\n{self.log_tail()}') from None
        self.base = f'http://127.0.0.1:{self.port}'
        return self

    def log_tail(self, n=3000):
        with open(self.log_path) as f:
            return f.read()[-n:]

    def query(self, expr):
        """The result vector, or raises RuntimeError with Prometheus' error."""
        r = api(self.base, '/api/v1/query', query=expr)
        if r.get('status') != 'success':
            raise RuntimeError(r.get('error', 'unknown error'))
        return r['data']['result']

    def try_query(self, expr):
        try:
            return self.query(expr)
        except RuntimeError:
            return []

    def __exit__(self, *exc):
        if self.proc:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def wait_until(predicate, timeout, step=0.5):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()
