#!/usr/bin/env python3
"""Checks the rule bundle beyond what promtool checks:

* every alert has a firing test and a near-miss test (rules/tests/*.test.yml),
  and every test file evaluates the rule groups in file order (recording
  rules before the alerts that read them);
* every alert has severity critical|warning|info, a static summary, a
  description and a runbook_url pointing at an existing docs/runbooks.md anchor;
* alert names are Fabric + CamelCase, at most 40 characters, without a
  trailing all-caps acronym;
* every metric a rule or an annotation query uses is one the exporter exposes:
  tests/golden/*.prom, the probe value catalogue, recording rules, or
  rules/tests/external_metrics.txt (Prometheus' own, and names another branch
  adds that are not merged yet, which must be removed once they are).

Reads the rules through jsonnet (rules/generate --check keeps the committed
YAML equal to it). Python stdlib only.
"""
import glob
import json
import os
import re
import subprocess
import sys

SRC = os.environ.get('FABRIC_SOURCE_DIR', os.path.join(os.path.dirname(__file__), '..', '..'))
errors = []


def err(msg):
    errors.append(msg)


def load_rules():
    out = subprocess.run(
        ['jsonnet', '-J', os.path.join(SRC, 'rules'), '-e',
         "local m = import 'mixin/mixin.libsonnet'; "
         "{ groups: m.prometheusRules.groups + m.prometheusAlerts.groups, "
         "base: m._config.runbookBase }"],
        capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def golden_metrics():
    names = set()
    for path in glob.glob(os.path.join(SRC, 'tests', 'golden', '*.prom')):
        for line in open(path):
            m = re.match(r'(?:# (?:TYPE|HELP) )?([a-zA-Z_:][a-zA-Z0-9_:]*)', line)
            if m and not line.startswith('# ') or line.startswith('# TYPE'):
                if m:
                    names.add(m.group(1))
    return names


def probe_metrics():
    text = open(os.path.join(SRC, 'exporter', 'probes', 'probe_results_collector.cc')).read()
    block = re.search(r'kValueCatalogue\[\] = \{(.*?)\n\};', text, re.S)
    if not block:
        err('probe_results_collector.cc: kValueCatalogue not found')
        return set()
    names = {'fabric_probe_' + n for n in re.findall(r'\{"([a-z0-9_]+)",', block.group(1))}
    names |= set(re.findall(r'"(fabric_probe_[a-z0-9_]+)"', text))
    return names


def external_metrics():
    path = os.path.join(SRC, 'rules', 'tests', 'external_metrics.txt')
    names = {}
    for line in open(path):
        line = line.split('#', 1)[0].strip()
        if line:
            kind, name = line.split()
            names[name] = kind
    return names


KEYWORDS = {
    'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless',
    'bool', 'offset', 'sum', 'min', 'max', 'avg', 'count', 'quantile', 'stddev', 'stdvar',
    'topk', 'bottomk', 'count_values', 'group', 'scalar', 'vector', 'time', 'increase', 'rate',
    'irate', 'delta', 'deriv', 'label_replace', 'label_join', 'abs', 'clamp', 'clamp_min',
    'clamp_max', 'changes', 'resets', 'absent', 'absent_over_time', 'avg_over_time',
    'max_over_time', 'min_over_time', 'sum_over_time', 'count_over_time',
    'quantile_over_time', 'last_over_time', 'timestamp', 'round', 'sort', 'sort_desc',
    'histogram_quantile', 'predict_linear', 'ceil', 'floor', 'sgn', 'day_of_week', 'hour',
    'present_over_time', 'stddev_over_time', 'inf', 'nan',
}


def metric_names(expr):
    """Metric names an expression selects (strings, label lists, selectors and
    durations removed first)."""
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    e = re.sub(r'\{[^}]*\}', '', e)
    e = re.sub(r'\[[^\]]*\]', '', e)
    e = re.sub(r'\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)', r'\1', e)
    e = re.sub(r'\b\d[\w.]*', '', e)  # numbers and durations (1h, 25e9)
    return {t for t in re.findall(r'[a-zA-Z_:][a-zA-Z0-9_:]*', e) if t not in KEYWORDS}


def annotation_queries(text):
    return re.findall(r'printf `([^`]*)`', text) + re.findall(r'query "([^"]*)"', text)


def anchors():
    path = os.path.join(SRC, 'docs', 'runbooks.md')
    result = set()
    for line in open(path):
        m = re.match(r'#+\s+(.*)', line)
        if m:
            a = re.sub(r'[^\w\- ]', '', m.group(1).strip().lower()).replace(' ', '-')
            result.add(a)
    return result


def tests(group_names):
    """alertname -> set of kinds ('firing', 'near_miss') over all test files;
    also checks each file's group_eval_order lists every rule group in order."""
    seen = {}
    for path in sorted(glob.glob(os.path.join(SRC, 'rules', 'tests', '*.test.yml'))):
        text = open(path).read()
        m = re.search(r'^group_eval_order: \[(.*)\]$', text, re.M)
        order = [g.strip() for g in m.group(1).split(',')] if m else None
        if order != group_names:
            err(f'{os.path.basename(path)}: group_eval_order must be [{", ".join(group_names)}]')
        lines = text.split('\n')
        for i, line in enumerate(lines):
            m = re.match(r'\s+alertname:\s*(\w+)\s*$', line)
            if not m:
                continue
            nxt = lines[i + 1].strip() if i + 1 < len(lines) else ''
            if re.match(r'exp_alerts:\s*\[\]\s*(#.*)?$', nxt):
                kind = 'near_miss'
            elif nxt == 'exp_alerts:' and lines[i + 2].strip().startswith('- exp_labels:'):
                kind = 'firing'
            else:
                err(f'{os.path.basename(path)}:{i + 2}: unrecognised exp_alerts after {m.group(1)}')
                continue
            seen.setdefault(m.group(1), set()).add(kind)
    return seen


def main():
    data = load_rules()
    rules = [r for g in data['groups'] for r in g['rules']]
    records = {r['record'] for r in rules if 'record' in r}
    ext = external_metrics()
    golden = golden_metrics()
    catalogue = golden | probe_metrics() | records | set(ext)
    for name, kind in ext.items():
        if kind == 'pending' and name in golden:
            err(f'external_metrics.txt: {name} is now in tests/golden: remove its pending line')
    anchor_set = anchors()
    tested = tests([g['name'] for g in data['groups']])
    alerts = [r for r in rules if 'alert' in r]
    names = [a['alert'] for a in alerts]
    for n in set(names):
        if names.count(n) > 1:
            err(f'{n}: defined {names.count(n)} times')
    for r in rules:
        who = r.get('alert') or r.get('record')
        used = metric_names(r['expr'])
        for text in r.get('annotations', {}).values():
            for q in annotation_queries(text):
                used |= metric_names(q.replace('%q', '""'))
        for m in sorted(used - catalogue):
            err(f'{who}: uses {m}, which the exporter does not expose (not in tests/golden, '
                'the probe catalogue, the recording rules or external_metrics.txt)')
        if 'record' in r and not re.match(r'^[a-z_]+:[a-z0-9_]+:[a-z0-9_]+$', r['record']):
            err(f'{who}: recording rule name is not level:metric:operations')
    for a in alerts:
        n = a['alert']
        if len(n) > 40:
            err(f'{n}: name longer than 40 characters')
        if not re.match(r'^Fabric[A-Z][A-Za-z0-9]*$', n):
            err(f'{n}: name is not Fabric + CamelCase')
        if re.search(r'[A-Z]{2,}$', n):
            err(f'{n}: name ends in an all-caps acronym (write Bdp, not BDP)')
        sev = a.get('labels', {}).get('severity')
        if sev not in ('critical', 'warning', 'info'):
            err(f'{n}: severity {sev!r} is not critical|warning|info')
        ann = a.get('annotations', {})
        for k in ('summary', 'description', 'runbook_url'):
            if not ann.get(k):
                err(f'{n}: missing annotation {k}')
        if '{{' in ann.get('summary', ''):
            err(f'{n}: summary must be static (templates go in description)')
        url = ann.get('runbook_url', '')
        base, _, anchor = url.partition('#')
        if base != data['base'] or not anchor:
            err(f'{n}: runbook_url {url!r} is not {data["base"]}#<anchor>')
        elif anchor not in anchor_set:
            err(f'{n}: runbook anchor #{anchor} is not a heading of docs/runbooks.md')
        kinds = tested.get(n, set())
        for k in ('firing', 'near_miss'):
            if k not in kinds:
                err(f'{n}: no {k.replace("_", "-")} test in rules/tests/*.test.yml')
    for n in sorted(set(tested) - set(names)):
        err(f'tests name {n}, which is not an alert')
    pending = sorted(n for n, k in ext.items() if k == 'pending')
    if pending:
        print(f'note: {len(pending)} metric names accepted as pending (not yet in tests/golden): '
              + ', '.join(pending))
    if errors:
        print('\n'.join(errors))
        print(f'{len(errors)} problem(s)')
        return 1
    print(f'ok: {len(alerts)} alerts, {len(records)} recording rules, '
          f'{len(catalogue)} known metric names')
    return 0


if __name__ == '__main__':
    sys.exit(main())
