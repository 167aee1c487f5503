#!/usr/bin/env python3
"""The ladder page, `fabric_probe ladder` and the rule bundle name the same shapes.

exporter/ladder/ (DetectShapes) names the bottleneck shapes of a path for the page at `/` and
for `fabric_probe ladder`; rules/fabric-ladder.rules.yml names shapes with alerts. For each
scenario below (a fault and its near miss per shape the ladder can name) this test

- writes a probe recording (the exporter's state-file format) and, where the shape is passive, a
  sysfs or procfs tree (PCIe fixtures, socket-buffer sysctls);
- runs the real fabric_exporter over them (probes.recording), fetches `/` and `/metrics`;
- runs `fabric_probe ladder --replay` on the same recording and trees (`--json`);
- evaluates the whole bundle with `promtool test rules` over the scraped samples (1 m steps,
  past every `for:`), and takes the alerts of SHAPE_ALERTS that fire;

and asserts: the shape ids the page names (`data-shape`) == the CLI's (`shape_ids`) == the
shapes SHAPE_ALERTS maps the firing alerts to == the scenario's expectation. SHAPE_ALERTS is the
one table from ladder shape to alert; docs/probes/scheduled.md#the-ladder-page shows it, and
this test checks that the two are the same. It prints the matrix scenario x page/cli/rules.
Exits 77 without promtool.

    tests/rules/ladder_agreement_test.py [-k SUBSTRING] [--keep DIR]
"""
import argparse
import concurrent.futures
import copy
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from fabric_testlib import rule_eval
from fabric_testlib.exporter_process import FIXTURES, SOURCE_DIR, Exporter
from fabric_testlib.probe_process import PROBE

# Each ladder shape id (exporter/ladder/ladder_model.cc) and the alert that names it on the same
# evidence, with the labels that single it out: a shape is named by the rules when its alert
# fires with those labels.
SHAPE_ALERTS = {
    'pcie_slot_limited': ('FabricNicSlotLimited', {}),
    'pcie_downtrained': ('FabricPcieLinkDowntrained', {}),
    'pcie_below_line_rate': ('FabricPciePathBelowLineRate', {}),
    'socket_buffer_below_bdp': ('FabricSocketBufferBelowBdp', {}),
    'stream_limited': ('FabricProbeStreamLimited', {}),
    'harness_limited_rdma': ('FabricProbeHarnessLimited', {'probe': 'rdma'}),
    'harness_limited_tcp_multi': ('FabricProbeHarnessLimited', {'probe': 'tcp_multi'}),
    'harness_limited_storage_read': ('FabricProbeHarnessLimited', {'probe': 'storage_read'}),
    'harness_limited_storage_write': ('FabricProbeHarnessLimited', {'probe': 'storage_write'}),
    'tx_rx_asymmetry': ('FabricTransmitAsymmetry', {}),
    'route_unexpected_interface': ('FabricRouteUnexpectedInterface', {}),
    'jumbo_frames_failing': ('FabricJumboFramesFailing', {}),
    'storage_read_latency_bound': ('FabricStorageLatencyBound', {'rung': 'storage_read'}),
    'storage_write_latency_bound': ('FabricStorageLatencyBound', {'rung': 'storage_write'}),
    'transfers_below_ladder': ('FabricTransfersFarBelowLadder', {}),
}
BY = ('probe', 'rung')  # The labels SHAPE_ALERTS singles alerts out by.
DOC = os.path.join(SOURCE_DIR, 'docs', 'probes', 'scheduled.md')
INSTANCE = 'node-a:9877'
STEPS = 40  # Minutes of samples; the alerts are read at EVAL_MINUTES, past the 15 m `for:`.
EVAL_MINUTES = 30
NICS_SYS = os.path.join(FIXTURES, 'nics', 'sys')
H200_PROC = os.path.join(FIXTURES, 'h200', 'proc')


def rules_shapes(fired):
    """The shapes SHAPE_ALERTS maps the firing (alertname, probe, rung) tuples to."""
    shapes = set()
    for alert, *values in fired:
        labels = dict(zip(BY, values))
        for shape, (name, want) in SHAPE_ALERTS.items():
            if name == alert and all(labels.get(k) == v for k, v in want.items()):
                shapes.add(shape)
    return shapes


class PageShapes(html.parser.HTMLParser):
    """The data-shape of every shape item of every ladder section."""

    def __init__(self):
        super().__init__()
        self.shapes, self.sections = [], 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'section' and 'ladder' in a.get('class', '').split():
            self.sections += 1
        if tag == 'li' and a.get('class') == 'shape':
            self.shapes.append(a.get('data-shape', '?'))


# The base recording: node-a's healthy 100 GbE path to node-b from the nics fixture (one stream
# CPU-bound, as one stream is on fast NICs), its storage directory with fast depth-1 runs.
def base_results():
    with open(os.path.join(FIXTURES, 'nics', 'probes.rec.yml')) as f:
        doc = json.loads(''.join(l for l in f if not l.lstrip().startswith('#')))
    results = [r for r in doc['results'] if r['target'] != 'node-c']
    for r in results:
        if r['probe'] == 'storage_write':
            r['verdicts']['latency_bound'] = False
    return results


def find(results, probe, direction=''):
    matches = [r for r in results if r['probe'] == probe and r.get('direction', '') == direction]
    assert len(matches) == 1, (probe, direction, matches)
    return matches[0]


def setting(probe, direction='', values=None, verdicts=None, info=None):
    """A change of one record: values, verdicts and info merged into it."""
    def apply(results):
        r = find(results, probe, direction)
        r['values'].update(values or {})
        r['verdicts'].update(verdicts or {})
        r['info'].update(info or {})
    return apply


def added(record):
    def apply(results):
        results.append(copy.deepcopy(record))
    return apply


def flows(*sockets):
    """A change that leaves the recording alone and gives the exporter a flows recording
    (collectors.flows.recording) of bulk flows between node-a and node-b, 10 s apart. Each socket:
    (remote port, 'send' or 'receive', bytes/s). A send flow is limited by the network (its
    congestion window, busy the whole time); a receive flow by the remote sender."""
    def apply(results):
        pass
    apply.flows = sockets
    return apply


def flow_recording(path, sockets):
    lines = []
    for t, scale in ((1000.0, 0), (1010.0, 10)):
        lines += [f'snapshot {t}', 'address ens1f0np0 198.18.0.1']
        for i, (port, direction, rate) in enumerate(sockets):
            moved = int(rate * scale)
            common = (f'socket 198.18.0.1:{40000 + i} 198.18.0.2:{port} cookie={i + 1} '
                      'rwnd_limited_us=0 sndbuf_limited_us=0 ')
            if direction == 'send':
                lines.append(common + f'bytes_acked={moved} bytes_received=0 '
                             f'busy_us={scale * 1000000} rtt_us=450 snd_cwnd=1200 snd_mss=8948 '
                             'snd_wnd=16777216 rcv_space=65483 sndbuf=16777216 rcvbuf=131072 '
                             f'delivery_rate={int(rate * 1.1)} total_retrans={scale * 10}')
            else:
                lines.append(common + f'bytes_acked={scale * 1000} bytes_received={moved} '
                             f'busy_us={scale * 500} rtt_us=300 snd_cwnd=10 snd_mss=8948 '
                             'snd_wnd=65536 rcv_space=12582912 sndbuf=87040 rcvbuf=25165824 '
                             'delivery_rate=0 total_retrans=0')
    with open(path, 'w') as f:
        f.write('\n'.join(lines) + '\n')


CPU = {'cpu_bound': True}
OWN_CPU = {'local_cpu_ratio': 0.97, 'remote_cpu_ratio': 0.4}
DEPTH1_WRITE = {'latency_p50_seconds': 0.0142, 'throughput_bytes_per_second': 7.0e7}

# name: (changes to the recording, sysfs tree (or (PCIe fixture, speeds) for physical_tree),
# fabric interface, sysctl overrides under proc/sys/net, expected shapes).
# Scenario names say fault or near miss; every near miss is a case the ladder used to name.
SCENARIOS = {
    'healthy': ([], NICS_SYS, 'ens1f0np0', {}, set()),
    # Shape 10.
    'asymmetry': ([setting('tcp_multi', 'send', {'throughput_bytes_per_second': 5e9})],
                  NICS_SYS, 'ens1f0np0', {}, {'tx_rx_asymmetry'}),
    'asymmetry send cpu_bound': (
        [setting('tcp_multi', 'send', {'throughput_bytes_per_second': 5e9, **OWN_CPU}, CPU)],
        NICS_SYS, 'ens1f0np0', {}, {'tx_rx_asymmetry', 'harness_limited_tcp_multi'}),
    'near miss: asymmetry of two cpu_bound': (
        [setting('tcp_multi', 'send', {'throughput_bytes_per_second': 5e9, **OWN_CPU}, CPU),
         setting('tcp_multi', 'receive', OWN_CPU, CPU)],
        NICS_SYS, 'ens1f0np0', {}, {'harness_limited_tcp_multi'}),
    'near miss: receive slower than send': (
        [setting('tcp_multi', 'receive', {'throughput_bytes_per_second': 5e9})],
        NICS_SYS, 'ens1f0np0', {}, set()),
    'near miss: send at 86% of receive': (
        [setting('tcp_multi', 'send', {'throughput_bytes_per_second': 0.86 * 11675000000.0})],
        NICS_SYS, 'ens1f0np0', {}, set()),
    # The harness.
    'contended N-stream': ([setting('tcp_multi', 'send', verdicts={'contended': True})],
                           NICS_SYS, 'ens1f0np0', {}, {'harness_limited_tcp_multi'}),
    'near miss: cpu_bound at the far end': (
        [setting('tcp_multi', 'send', {'local_cpu_ratio': 0.5, 'remote_cpu_ratio': 0.95}, CPU)],
        NICS_SYS, 'ens1f0np0', {}, set()),
    'rdma cpu_bound': ([setting('rdma', 'send', verdicts=CPU)], NICS_SYS, 'ens1f0np0', {},
                       {'harness_limited_rdma'}),
    'near miss: rdma congested': ([setting('rdma', 'send', verdicts={'congested': True})],
                                  NICS_SYS, 'ens1f0np0', {}, set()),
    'storage read cpu_bound': ([setting('storage_read', verdicts=CPU)], NICS_SYS, 'ens1f0np0',
                               {}, {'harness_limited_storage_read'}),
    # Shape 3.
    'stream-limited': (
        [setting('tcp_multi', 'send', verdicts={'stream_limited': True}),
         setting('tcp_multi_sweep', 'send', {'throughput_bytes_per_second': 1.35e10,
                                             'streams': 16})],
        NICS_SYS, 'ens1f0np0', {}, {'stream_limited'}),
    'near miss: stream_limited, the sweep no faster': (
        [setting('tcp_multi', 'send', verdicts={'stream_limited': True})],
        NICS_SYS, 'ens1f0np0', {}, set()),
    # Shape 13.
    'route via the wrong interface': (
        [setting('path', values={'egress_matches_expected': 0},
                 info={'egress_interface': 'ens1f1np1'})],
        NICS_SYS, 'ens1f0np0', {}, {'route_unexpected_interface'}),
    'jumbo frames fail': ([setting('path', values={'jumbo_frames_pass': 0})], NICS_SYS,
                          'ens1f0np0', {}, {'jumbo_frames_failing'}),
    # Shape 12.
    'storage write latency-bound': ([setting('storage_write_depth1', values=DEPTH1_WRITE)],
                                    NICS_SYS, 'ens1f0np0', {}, {'storage_write_latency_bound'}),
    'near miss: latency_bound verdict, fast depth-1 run': (
        [setting('storage_write', verdicts={'latency_bound': True})],
        NICS_SYS, 'ens1f0np0', {}, set()),
    # Shape 1.
    'receive buffers below the BDP': ([], NICS_SYS, 'ens1f0np0',
                                      {'core/rmem_max': '212992'}, {'socket_buffer_below_bdp'}),
    'send buffers below the BDP': ([], NICS_SYS, 'ens1f0np0',
                                   {'ipv4/tcp_wmem': '4096\t16384\t262144'},
                                   {'socket_buffer_below_bdp'}),
    'long RTT over the buffers': ([setting('tcp_multi', 'receive', {'min_rtt_seconds': 6e-4})],
                                  NICS_SYS, 'ens1f0np0', {}, {'socket_buffer_below_bdp'}),
    'near miss: window verdicts, buffers above the BDP': (
        [setting('tcp_multi', 'send', verdicts={'receiver_window_limited': True,
                                                'send_buffer_limited': True})],
        NICS_SYS, 'ens1f0np0', {}, set()),
    # Shape 14 on the PCIe fixture trees (200 GbE NICs unless said).
    'PCIe x4 slot': ([], ('pcie-x4-slot', {}), 'enp2s0np0', {},
                     {'pcie_slot_limited', 'pcie_below_line_rate'}),
    'near miss: x4 slot, 50 GbE NIC': ([], ('pcie-x4-slot', {'enp2s0np0': 50000}), 'enp2s0np0',
                                       {}, set()),
    'PCIe link downtrained': ([], ('pcie-downtrained-x8', {}),
                              'enp193s0f0np0', {}, {'pcie_downtrained', 'pcie_below_line_rate'}),
    'PCIe gen4 path, 400G NIC': ([], ('pcie-gen5-in-gen4', {}), 'ibp1s0',
                                 {}, {'pcie_below_line_rate'}),
    'near miss: healthy PCIe': ([], ('pcie-healthy', {}), 'ens1f0np0',
                                {}, set()),
    # Shapes 8 and 9 at the path: real transfers far below the N-stream rung (11.7 GB/s each way
    # in the base recording), judged on the flows' sum per direction as the rule does.
    'transfers far below the ladder': ([flows((5201, 'send', 0.6e9), (5201, 'send', 0.4e9))],
                                       NICS_SYS, 'ens1f0np0', {}, {'transfers_below_ladder'}),
    'received transfers far below the ladder': ([flows((873, 'receive', 1.2e9))], NICS_SYS,
                                                'ens1f0np0', {}, {'transfers_below_ladder'}),
    'near miss: parallel transfer at 30% of the ladder': (
        [flows((5201, 'send', 1.75e9), (5201, 'send', 1.75e9))], NICS_SYS, 'ens1f0np0', {},
        set()),
    # The floor is 1% of the 12.5 GB/s line (transferMinPathRatio): 0.1 GB/s is under it.
    'near miss: transfers below the floor': ([flows((2049, 'send', 0.1e9))], NICS_SYS,
                                             'ens1f0np0', {}, set()),
    'near miss: only the probe\'s own flows': ([flows((9878, 'send', 1.0e9))], NICS_SYS,
                                                'ens1f0np0', {}, set()),
}
# `fabric_probe ladder` reads no flows (they are the exporter's collector): it never names these.
EXPORTER_ONLY = {'transfers_below_ladder'}


def physical_tree(tmp, fixture, speeds):
    """A copy of a PCIe fixture's sysfs whose interfaces are physical NICs, as on a host: each
    with the `device` link to its PCI function the netdev collector selects NICs by (the
    captured trees lack it). `speeds`: {interface: Mb/s} to change."""
    tree = os.path.join(tmp, fixture + ''.join(f'-{i}-{v}' for i, v in speeds.items()) + '-sys')
    if os.path.exists(tree):
        return tree
    shutil.copytree(os.path.join(FIXTURES, fixture, 'sys'), tree, symlinks=True)
    net = os.path.join(tree, 'class', 'net')
    for name in os.listdir(net):
        dst = os.path.realpath(os.path.join(net, name))
        function = os.path.dirname(os.path.dirname(dst))
        if not os.path.lexists(os.path.join(dst, 'device')):
            os.symlink(os.path.relpath(function, dst), os.path.join(dst, 'device'))
        if name in speeds:
            with open(os.path.join(dst, 'speed'), 'w') as f:
                f.write(f'{speeds[name]}\n')
    return tree


def pcie_settings(fixture):
    """The pcie collector's settings, with the fixture's config-space dump where it has one."""
    dump = os.path.join(FIXTURES, fixture or 'nics', 'lspci-xxxx.txt')
    lines = f'    pci_ids_file: {os.path.join(FIXTURES, "pci.ids")}\n'
    if os.path.exists(dump):
        lines += f'    config_space_dump: {dump}\n'
    return lines


def prepare(tmp, name, changes, sysfs, iface, sysctls):
    """(recording, procfs, sysfs, config) of a scenario, written under tmp."""
    slug = re.sub(r'[^a-z0-9]+', '-', name.lower()).strip('-')
    results = base_results()
    for change in changes:
        change(results)
    rec = os.path.join(tmp, slug + '.rec.json')
    with open(rec, 'w') as f:
        json.dump({'version': 1, 'results': results}, f)
    proc = os.path.join(tmp, slug + '-proc')
    shutil.copytree(H200_PROC, proc)
    for key, value in sysctls.items():
        with open(os.path.join(proc, 'sys', 'net', key), 'w') as f:
            f.write(value + '\n')
    fixture = None
    if isinstance(sysfs, tuple):
        fixture = sysfs[0]
        sysfs = physical_tree(tmp, *sysfs)
    sockets = [sock for c in changes for sock in getattr(c, 'flows', ())]
    collectors = 'collectors:\n  pcie:\n' + pcie_settings(fixture)
    if sockets:
        recording = os.path.join(tmp, slug + '.flows.rec')
        flow_recording(recording, sockets)
        collectors += f'  flows:\n    recording: {recording}\n'
    config = os.path.join(tmp, slug + '.yml')
    with open(config, 'w') as f:
        f.write(collectors +
                'fleet:\n  self: node-a\n  nodes:\n'
                f'    - {{name: node-a, address: 198.18.0.1, interface: {iface}, mtu: 9000}}\n'
                f'    - {{name: node-b, address: 198.18.0.2, interface: {iface}, mtu: 9000}}\n'
                f'probes:\n  path: {{enabled: false}}\n  recording: {rec}\n')
    return slug, rec, proc, sysfs, config


def run_scenario(tmp, name, scenario):
    changes, sysfs, iface, sysctls, expected = scenario
    slug, rec, proc, sysfs, config = prepare(tmp, name, changes, sysfs, iface, sysctls)
    with Exporter('--path.procfs=' + proc, '--path.sysfs=' + sysfs,
                  '--config.file=' + config) as exporter:
        metrics = exporter.metrics()
        status, _, body = exporter.get('/')
    assert status == 200, status
    page = PageShapes()
    page.feed(body)
    assert page.sections == 1, f'{name}: {page.sections} ladder sections, expected node-b only'
    cli = subprocess.run([PROBE, 'ladder', '--replay', rec, '--peer', 'node-b', '--interface',
                          iface, '--path.procfs=' + proc, '--path.sysfs=' + sysfs, '--json'],
                         capture_output=True, text=True, timeout=60)
    assert cli.returncode == 0, f'{name}: fabric_probe ladder exited {cli.returncode}: {cli.stderr}'
    cli_shapes = json.loads(cli.stdout)['shape_ids']
    assert not EXPORTER_ONLY & set(cli_shapes), f'{name}: the CLI named {cli_shapes}'
    alerts = {a for a, _ in SHAPE_ALERTS.values()}
    fired = rule_eval.firing_alerts(os.path.join(tmp, slug + '.test.json'),
                                    rule_eval.scrape_series(metrics, INSTANCE, STEPS),
                                    EVAL_MINUTES, alerts, BY)
    return {'page': page.shapes, 'cli': cli_shapes, 'rules': sorted(rules_shapes(fired)),
            'fired': sorted(fired), 'expected': sorted(expected)}


def threshold_copies():
    """The page judges by the rule bundle's thresholds compiled in from rules/thresholds.json
    (exporter/ladder/rule_thresholds.h, one source with the alerts): one message per file of
    the page or the CLI that defines a constant of its own named like a _config key
    (`kTransferCriticalRatio` for transferCriticalRatio), a second copy that could drift."""
    with open(os.path.join(SOURCE_DIR, 'rules', 'thresholds.json')) as f:
        config = json.load(f)
    names = {'k' + k[0].upper() + k[1:] for k, v in config.items()
             if isinstance(v, (int, float)) and not isinstance(v, bool)}
    errors = []
    for folder in ('exporter/ladder', 'exporter/pages', 'exporter/probe_cli'):
        for name in sorted(os.listdir(os.path.join(SOURCE_DIR, folder))):
            if not name.endswith(('.cc', '.h')):
                continue
            with open(os.path.join(SOURCE_DIR, folder, name)) as f:
                text = f.read()
            for constant in sorted(set(re.findall(r'constexpr\s+\w+\s+(k\w+)\s*=', text)) & names):
                errors.append(f'{folder}/{name}: {constant} copies a rule threshold; use '
                              'rule_config (exporter/ladder/rule_thresholds.h)')
    return errors


def doc_table():
    """{shape: (alert, labels)} of the table in docs/probes/scheduled.md (rows `| `id` |
    `Alert` | `label="value"` |`), after the 'ladder-shape-alerts' anchor."""
    with open(DOC) as f:
        text = f.read()
    start = text.index('<a id="ladder-shape-alerts"></a>')
    table = {}
    for line in text[start:].splitlines()[2:]:
        if not line.startswith('|'):
            if table:
                break
            continue
        cells = [c.strip() for c in line.strip('|').split('|')]
        m = re.fullmatch(r'`([a-z0-9_]+)`', cells[0])
        if not m:
            continue
        labels = dict(re.findall(r'`(\w+)="([^"]*)"`', cells[2]))
        table[m.group(1)] = (cells[1].strip('`'), labels)
    return table


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('-k', default='', help='only scenarios whose name contains this')
    ap.add_argument('--keep', help='write the recordings, trees and promtool tests here')
    args = ap.parse_args()
    if not shutil.which('promtool'):
        print('promtool not installed: skipped')
        return 77
    errors = []
    _, bundle = rule_eval.rule_groups()
    for shape, (alert, _) in SHAPE_ALERTS.items():
        if alert not in bundle:
            errors.append(f'SHAPE_ALERTS: {shape} maps to {alert}, which the bundle does not have')
    errors += threshold_copies()
    if doc_table() != SHAPE_ALERTS:
        errors.append('docs/probes/scheduled.md#ladder-shape-alerts differs from SHAPE_ALERTS:\n'
                      f'  docs: {doc_table()}\n  test: {SHAPE_ALERTS}')
    tmp = args.keep or tempfile.mkdtemp(prefix='fabric-agreement-')
    os.makedirs(tmp, exist_ok=True)
    scenarios = {n: s for n, s in SCENARIOS.items() if args.k in n}
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        futures = {n: pool.submit(run_scenario, tmp, n, s) for n, s in scenarios.items()}
        for name, future in futures.items():
            try:
                results[name] = future.result()
            except (AssertionError, RuntimeError, subprocess.SubprocessError) as e:
                errors.append(f'{name}: {e}')
    width = max(len(n) for n in scenarios)
    print(f'{"scenario".ljust(width)}  ok  page / cli / rules (shape ids; "-" none)')
    for name, r in results.items():
        same = (set(r['page']) == set(r['rules']) == set(r['expected']) and
                set(r['cli']) == set(r['expected']) - EXPORTER_ONLY)
        unmapped = [s for s in r['page'] + r['cli'] if s not in SHAPE_ALERTS]
        dupes = len(r['page']) != len(set(r['page']))
        cells = ' / '.join(','.join(sorted(r[k])) or '-' for k in ('page', 'cli', 'rules'))
        print(f'{name.ljust(width)}  {"ok" if same else "NO"}  {cells}')
        if not same:
            errors.append(f'{name}: page {r["page"]}, cli {r["cli"]}, rules {r["rules"]} '
                          f'(fired {r["fired"]}), expected {r["expected"]}')
        if unmapped:
            errors.append(f'{name}: shapes without an alert in SHAPE_ALERTS: {unmapped}')
        if dupes:
            errors.append(f'{name}: the page names a shape twice: {r["page"]}')
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    if errors:
        print(f'\nFAIL ({len(errors)}):')
        for e in errors:
            print(e)
        return 1
    print(f'\nOK: {len(results)} scenarios, page, CLI and rules name the same shapes')
    return 0


if __name__ == '__main__':
    sys.exit(main())
