#!/usr/bin/env python3
"""The Alertmanager example is valid, routes every alert of the rule bundle as its comments
say, and inhibits only by alerts and labels the bundle has (amtool, offline). Python stdlib +
python3-yaml.

* amtool check-config accepts it;
* every alert of rules/fabric-ladder.rules.yml routes by its severity: the one critical alert
  (the page, FabricTransfersFarBelowLadder) to the pager, info to the dashboard channel,
  everything else to the tickets queue;
* every alertname a route or an inhibition matches is an alert of the bundle, and every label
  an inhibition's `equal` names (or its target matchers match) is one both its source and its
  target alerts carry (the label
  sets the promtool tests in rules/tests/*.test.yml expect: an inhibition on a label an alert
  does not have never inhibits anything).
"""
import glob
import os
import re
import subprocess
import sys

import yaml

SRC = os.environ.get('FABRIC_SOURCE_DIR', os.path.join(os.path.dirname(__file__), '..', '..'))
CONFIG = os.path.join(SRC, 'deploy', 'examples', 'alertmanager.yml')
RULES = os.path.join(SRC, 'rules', 'fabric-ladder.rules.yml')
PAGE = 'FabricTransfersFarBelowLadder'

failed = []
subprocess.run(['amtool', 'check-config', CONFIG], check=True, stdout=subprocess.DEVNULL)

alerts = {r['alert']: r['labels']['severity']
          for g in yaml.safe_load(open(RULES))['groups'] for r in g['rules'] if 'alert' in r}
critical = sorted(a for a, s in alerts.items() if s == 'critical')
if critical != [PAGE]:
    failed.append(f'the critical alerts are {critical}, want only {PAGE} (the one page)')


def route(labels):
    return subprocess.run(['amtool', 'config', 'routes', 'test', '--config.file=' + CONFIG]
                          + labels, capture_output=True, text=True).stdout.strip()


for name, severity in sorted(alerts.items()):
    want = ('fabric-pager' if name == PAGE else
            'fabric-dashboard' if severity == 'info' else 'fabric-tickets')
    got = route(['alertname=' + name, 'severity=' + severity])
    if got != want:
        failed.append(f'{name} ({severity}): routed to {got!r}, want {want!r}')

# Label keys each alert carries, from the exp_labels of the promtool tests.
carried = {}
for path in glob.glob(os.path.join(SRC, 'rules', 'tests', '*.test.yml')):
    for test in yaml.safe_load(open(path))['tests']:
        for case in test.get('alert_rule_test', []):
            for exp in case.get('exp_alerts') or []:
                keys = set(exp.get('exp_labels', {})) | {'alertname'}
                carried.setdefault(case['alertname'], set()).update(keys)


def names(matchers):
    """Alert names a matcher list selects (= or =~ on alertname)."""
    out = []
    for m in matchers:
        mm = re.match(r'\s*alertname\s*(=~|=)\s*"([^"]*)"\s*$', m)
        if not mm:
            continue
        if mm.group(1) == '=':
            out.append(mm.group(2))
        else:
            out += [a for a in alerts if re.fullmatch(mm.group(2), a)]
            if not any(re.fullmatch(mm.group(2), a) for a in alerts):
                failed.append(f'matcher {m!r} selects no alert of the bundle')
    return out


config = yaml.safe_load(open(CONFIG))
for r in config['route'].get('routes', []):
    for n in names(r.get('matchers', [])):
        if n not in alerts:
            failed.append(f'route matcher names {n}, which is not an alert of the bundle')
for rule in config.get('inhibit_rules', []):
    sources, targets = names(rule['source_matchers']), names(rule['target_matchers'])
    for n in sources + targets:
        if n not in alerts:
            failed.append(f'inhibition names {n}, which is not an alert of the bundle')
        elif n not in carried:
            failed.append(f'inhibition names {n}, which no firing test in rules/tests shows')
        else:
            matched = {re.match(r'\s*(\w+)', m).group(1)
                       for m in (rule['target_matchers'] if n in targets else [])}
            missing = (set(rule.get('equal', [])) | matched) - carried[n]
            if missing:
                failed.append(f'inhibition by {sorted(missing)}: {n} carries no such label')

print('\n'.join(failed) if failed else f'ok: {len(alerts)} alerts routed, '
      f'{len(config.get("inhibit_rules", []))} inhibitions checked')
sys.exit(1 if failed else 0)
