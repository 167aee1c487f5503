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
import os
import re
import sys

from fabric_testlib.promql_names import (external_metrics, golden_metrics, load_rules, metric_names,
                          probe_metrics, unproduced_probe_metrics)

SRC = os.environ.get('FABRIC_SOURCE_DIR', os.path.join(os.path.dirname(__file__), '..', '..'))
errors = []


def err(msg):
    errors.append(msg)


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
    data = load_rules(SRC)
    rules = [r for g in data['groups'] for r in g['rules']]
    records = {r['record'] for r in rules if 'record' in r}
    ext = external_metrics(SRC)
    golden = golden_metrics(SRC)
    catalogue = ((golden | probe_metrics(SRC, errors) | records | set(ext)) -
                 unproduced_probe_metrics(errors))
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
