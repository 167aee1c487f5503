#!/usr/bin/env python3
"""dashboards_lint.check() fails on what it exists to catch: each case breaks
one thing in an in-memory copy of the committed dashboards and expects a
problem naming it (and the unbroken copy has none). Python stdlib only."""
import copy
import sys

import dashboards_lint as lint
from fabric_testlib.dashboards import hidden, load


def first_panel(d):
    return next(p for p in d['dashboards']['fabric-node.json']['panels'] if p['type'] != 'row')


def first_target(d):
    return first_panel(d)['targets'][0]


def set_expr(expr):
    def f(d):
        first_target(d)['expr'] = expr
    return f


def main():
    errors = []
    dashboards = load(lint.SRC)
    marks = hidden(lint.SRC)
    known = lint.catalogue(lint.SRC, errors) | {'ALERTS', 'ALERTS_FOR_STATE'}
    base = lint.check(dashboards, marks, known)
    if base:
        print('the committed dashboards already fail the lint:\n' + '\n'.join(base))
        return 1
    cases = [
        ('a metric the exporter does not expose',
         set_expr('fabric_netdev_no_such_metric{job=~"$job", instance=~"$instance"}'),
         'fabric_netdev_no_such_metric'),
        ('a raw series without $job', set_expr('fabric_netdev_mtu_bytes{instance=~"$instance"}'),
         'does not select job=~"$job"'),
        ('a recording rule without $instance',
         set_expr('instance:fabric_interface_mtu_bytes:max'), 'does not select instance'),
        ('rate over a fixed window',
         set_expr('rate(fabric_netdev_bytes_total{job=~"$job", instance=~"$instance"}[5m])'),
         '[$__rate_interval]'),
        ('a panel without a unit',
         lambda d: first_panel(d)['fieldConfig']['defaults'].pop('unit'), 'no unit'),
        ('a panel without a description', lambda d: first_panel(d).pop('description'),
         'no description'),
        ('a panel without a query', lambda d: first_panel(d).update(targets=[]), 'no query'),
        ('a hard-coded datasource',
         lambda d: first_panel(d).update(datasource={'type': 'prometheus', 'uid': 'abc'}),
         'datasource must be'),
        ('__inputs (an export for sharing)',
         lambda d: d['dashboards']['fabric-probes.json'].update(__inputs=[]), '__inputs'),
        ('a changed uid', lambda d: d['dashboards']['fabric-probes.json'].update(uid='x'),
         'stable'),
        ('no shared tag', lambda d: d['dashboards']['fabric-probes.json'].update(tags=[]),
         'fabric-ladder tag'),
        ('no datasource variable',
         lambda d: d['dashboards']['fabric-probes.json']['templating']['list'].pop(0),
         'variables must start'),
        ('an unexplained no-data mark',
         lambda d: d['marks']['fabric-node.json'][0][0].update(noData=' '), 'must say why'),
        ('a fleet query without a cost bound',
         lambda d: d['marks']['fabric-fleet.json'][0][0].update(cost=None), 'no cost bound'),
        ('a cost bound that is no polynomial in the fleet\'s dimensions',
         lambda d: d['marks']['fabric-fleet.json'][0][0].update(cost='N**2'), 'only '),
    ]
    failed = 0
    for name, mutate, expect in cases:
        d = {'dashboards': copy.deepcopy(dashboards), 'marks': copy.deepcopy(marks)}
        mutate(d)
        problems = lint.check(d['dashboards'], d['marks'], known)
        if any(expect in p for p in problems):
            print(f'ok   {name}')
        else:
            print(f'FAIL {name}: expected a problem containing {expect!r}, got {problems}')
            failed += 1
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
