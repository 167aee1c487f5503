#!/usr/bin/env python3
"""Diagnosis fidelity: the whole rule bundle evaluated at once over scenario fleets.

For every scenario of scenarios.py (a fault and a near miss per field shape, healthy idle and
loaded fleets, a mixed 200G/25G fleet, a fleet with one CPU-starved harness, a node whose
send rate regressed over days) this builds the series the exporter would publish, evaluates
every recording and alerting rule of rules/fabric-ladder.rules.yml with `promtool test rules`
and asserts the complete set of firing alerts (alertname, instance, target) at the end of the
scenario: exactly the expected ones, and no rule that fails to evaluate. The fleet breaker
(FabricFleetWideShape) names no node: it is (FabricFleetWideShape, None, "shape N"). It prints a confusion
matrix (scenario x alert) and, for a failure, what fired instead.

Inputs use only names the exporter produces: metric names from tests/golden/*.prom and the
values of the probe catalogue that a probe kind produces (`fabric_exporter
--print-probe-catalogue`), probe label values from its rung table. Run through ctest
(`ctest -R fidelity`), which names the exporter binary in FABRIC_EXPORTER.

    tests/fidelity/fidelity_test.py [-k SUBSTRING] [--keep DIR] [--verbose]
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml
from fabric_testlib import promql_names

from fleet_model import Fleet  # noqa: F401 (the scenarios build Fleets)
from scenarios import SCENARIOS

SRC = os.path.abspath(os.environ.get('FABRIC_SOURCE_DIR',
                                     os.path.join(os.path.dirname(__file__), '..', '..')))
RULES = os.path.join(SRC, 'rules', 'fabric-ladder.rules.yml')
# The fleet breaker names no node: its `target` here is the shape it names ("shape 1").
QUERY = ('group by (alertname, instance, target) ('
         'ALERTS{alertstate="firing", alertname!="FabricFleetWideShape"} or label_replace('
         'ALERTS{alertstate="firing", alertname="FabricFleetWideShape"}, "target", "shape $1", '
         '"shape", "(.*)"))')


def producer_names(errors):
    """What the exporter can publish: metric names of the golden expositions, fabric_probe_<value>
    for every catalogue value some probe kind produces, the record families, and the rung ids
    (`fabric_exporter --print-probe-catalogue`, the table the rules and dashboards lints read)."""
    catalogue = promql_names.probe_catalogue(errors)
    known = promql_names.golden_metrics(SRC) | promql_names.probe_metrics(SRC, errors)
    rungs = {r['label'] for r in catalogue.get('rungs', [])}
    return known, rungs


def check_inputs(name, fleet, known, rungs, errors):
    unknown, unknown_rungs = set(), set()
    for s in fleet.series():
        if s.name not in known:
            unknown.add(s.name)
        probe = s.labels.get('probe')
        if probe is not None and probe not in rungs:
            unknown_rungs.add(probe)
    for n in sorted(unknown):
        errors.append(f'{name}: {n} is produced by no exporter code '
                      '(not in tests/golden/*.prom nor produced in the probe catalogue)')
    for p in sorted(unknown_rungs):
        errors.append(f'{name}: probe="{p}" is no rung of the rung table')


def instance_of(node):
    return '%s:9877' % node


def expected_samples(expected):
    out = []
    for alert, node, target in sorted(expected, key=lambda e: (e[0], e[1] or '', e[2] or '')):
        labels = {'alertname': alert}
        if node is not None:
            labels['instance'] = instance_of(node)
        if target is not None:
            labels['target'] = target
        body = ','.join('%s="%s"' % kv for kv in sorted(labels.items()))
        out.append({'labels': '{%s}' % body, 'value': 1})
    return out


def group_order():
    data = yaml.safe_load(open(RULES))
    return [g['name'] for g in data['groups']], [
        r['alert'] for g in data['groups'] for r in g['rules'] if 'alert' in r]


def write_test(path, name, fleet, expected, groups):
    eval_time = int(fleet.hours * 3600) - fleet.step_seconds
    doc = {
        'rule_files': [RULES],
        'evaluation_interval': '%ds' % fleet.step_seconds,
        'group_eval_order': groups,
        'tests': [{
            'name': name,
            'interval': '%ds' % fleet.step_seconds,
            'input_series': fleet.input_series(),
            'promql_expr_test': [{
                'expr': QUERY,
                'eval_time': '%ds' % eval_time,
                'exp_samples': expected_samples(expected),
            }],
        }],
    }
    with open(path, 'w') as f:
        yaml.safe_dump(doc, f, sort_keys=False, width=1000)


GOT = re.compile(r'\{([^}]*)\} 1E\+00')


def parse_got(output):
    """The firing (alertname, node, target) set from promtool's report of what the query
    returned; None when promtool reported no query result (e.g. a rule failed)."""
    m = re.search(r'got: (.*)$', output, re.M)
    if not m:
        return None if 'err:' in output else set()
    fired = set()
    for body in GOT.findall(m.group(1)):
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', body))
        node = labels['instance'].rsplit(':', 1)[0] if 'instance' in labels else None
        fired.add((labels.get('alertname'), node, labels.get('target')))
    return fired


def run(name, path):
    proc = subprocess.run(['promtool', 'test', 'rules', path], capture_output=True, text=True)
    return name, proc.returncode, proc.stdout + proc.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('-k', default='', help='only scenarios whose name contains this')
    ap.add_argument('--keep', help='write the promtool test files here and keep them')
    ap.add_argument('--verbose', action='store_true', help='print promtool output of failures')
    args = ap.parse_args()
    if not shutil.which('promtool'):
        print('promtool not found (scripts/setup-deps --test): skipped')
        return 77

    groups, alerts = group_order()
    errors = []
    known, rungs = producer_names(errors)
    known.add('up')
    tmp = args.keep or tempfile.mkdtemp(prefix='fidelity-')
    os.makedirs(tmp, exist_ok=True)
    cases = {}
    for name, sc in SCENARIOS.items():
        if args.k not in name:
            continue
        fleet, expected = sc['build']()
        check_inputs(name, fleet, known, rungs, errors)
        for alert, _, _ in expected:
            if alert not in alerts:
                errors.append(f'{name}: expects {alert}, which the bundle does not define')
        path = os.path.join(tmp, name + '.test.yml')
        write_test(path, name, fleet, expected, groups)
        cases[name] = (sc, expected, path)

    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for name, rc, out in pool.map(lambda kv: run(kv[0], kv[1][2]), cases.items()):
            results[name] = (rc, out)

    fired_by = {}
    for name, (sc, expected, _) in cases.items():
        rc, out = results[name]
        if rc == 0:
            fired_by[name] = set(expected)
            continue
        if re.search(r'\berr: ', out):
            errors.append(f'{name}: a rule failed to evaluate:\n' + '\n'.join(
                line.strip() for line in out.splitlines() if 'err:' in line))
        got = parse_got(out)
        fired_by[name] = got
        if got is None:
            continue
        missing = expected - got
        extra = got - expected
        msg = [f'{name}:']
        if missing:
            msg.append('  expected, did not fire: ' + ', '.join(fmt(e) for e in sorted(
                missing, key=str)))
        if extra:
            msg.append('  fired, not expected:   ' + ', '.join(fmt(e) for e in sorted(
                extra, key=str)))
        if not missing and not extra:
            msg.append('  promtool failed:\n' + out)
        errors.append('\n'.join(msg))
        if args.verbose:
            print(out)

    print_matrix(cases, fired_by, alerts)
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    if errors:
        print('\nFAIL (%d):' % len(errors))
        for e in errors:
            print(e)
        return 1
    print('\nOK: %d scenarios, every one raised exactly its expected alerts' % len(cases))
    return 0


def fmt(e):
    alert, node, target = e
    return '%s{%s%s}' % (alert, node or '', '' if target is None else ' -> ' + target)


def print_matrix(cases, fired_by, alerts):
    """Rows: scenarios; columns: the alerts that were expected or fired in any scenario.
    # expected and fired, + fired but not expected, - expected but silent, . neither;
    ? the scenario did not evaluate."""
    used = set()
    for name, (_, expected, _) in cases.items():
        used |= {e[0] for e in expected}
        used |= {e[0] for e in (fired_by.get(name) or set())}
    cols = [a for a in alerts if a in used]
    width = max([len(n) for n in cases] + [8])
    print('Confusion matrix (# expected+fired, + fired unexpected, - expected silent):')
    for i, a in enumerate(cols):
        print(' ' * (width + 2) + '| ' * i + a)
    print(' ' * (width + 2) + '| ' * len(cols))
    for name, (_, expected, _) in cases.items():
        fired = fired_by.get(name)
        exp_alerts = {e[0] for e in expected}
        cells = []
        for a in cols:
            if fired is None:
                cells.append('?')
                continue
            exp = {e for e in expected if e[0] == a}
            got = {e for e in fired if e[0] == a}
            if exp and exp == got:
                cells.append('#')
            elif got - exp:
                cells.append('+')
            elif exp - got:
                cells.append('-')
            else:
                cells.append('.')
        del exp_alerts
        print(name.ljust(width) + '  ' + ' '.join(cells))


if __name__ == '__main__':
    sys.exit(main())
