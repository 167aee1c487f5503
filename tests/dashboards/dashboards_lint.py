#!/usr/bin/env python3
"""Checks the Grafana dashboards (dashboards/*.json) against the conventions
of issue #11:

* valid JSON, the expected stable uid per file, no `__inputs` (provisioning-
  ready), the shared `fabric-ladder` tag and a dashboard link by that tag;
* templating starts with a `datasource` variable (type prometheus), then `job`
  and `instance`; every panel and query uses the `${datasource}` variable;
* every panel has a description, a unit and at least one query; ids unique;
* every raw exporter series is selected with job=~"$job" and
  instance=~"$instance" (a query marked fleet-wide may leave out instance);
  recording rules and ALERTS with instance=~"$instance";
* rate/irate/increase use [$__rate_interval];
* every metric name a query, variable or annotation uses is one the exporter
  exposes (tests/golden, the probe catalogue, external_metrics.txt) or a
  recording rule of the bundle (shared catalogue: tests/rules/promql_names.py);
* a target marked as having no data on the test fleet says why;
* every query of the fleet dashboard states its cost bound (a polynomial in
  the fleet's dimensions, which tests/scale checks on real data).

Python stdlib only. `check()` is what dashboards_lint_selftest.py breaks.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
from fabric_testlib.dashboards import (COST_SIZES, COSTED, EXPECTED_UIDS, cost_bound, hidden, load,
                                      selectors, targets, variable_queries)
from fabric_testlib.promql_names import (external_metrics, golden_metrics, load_rules, metric_names,
                          probe_metrics, unproduced_probe_metrics)

SRC = os.environ.get('FABRIC_SOURCE_DIR', os.path.join(HERE, '..', '..'))
DS_UID = '${datasource}'


def catalogue(src, errors):
    rules = [r for g in load_rules(src)['groups'] for r in g['rules']]
    records = {r['record'] for r in rules if 'record' in r}
    return ((golden_metrics(src) | probe_metrics(src, errors) | records | set(external_metrics(src))) -
            unproduced_probe_metrics(errors))


def check_expr(where, expr, known, fleet, errors):
    if not expr.strip():
        errors.append(f'{where}: empty query')
        return
    for name in sorted(metric_names(expr)):
        if name not in known:
            errors.append(f'{where}: uses {name}, which the exporter does not expose and no '
                          'recording rule records')
        for labels in selectors(expr, name):
            need = []
            if ':' not in name and name != 'ALERTS' and not where.endswith('variable job'):
                need.append('job=~"$job"')
            if not fleet:
                need.append('instance=~"$instance"')
            for n in need:
                if n not in labels:
                    errors.append(f'{where}: {name}{{{labels}}} does not select {n}')
    for m in re.finditer(r'\b(rate|irate|increase)\s*\(', expr):
        rng = re.search(r'\[([^\]]*)\]', expr[m.end():])
        if not rng or rng.group(1) != '$__rate_interval':
            errors.append(f'{where}: {m.group(1)}() must use [$__rate_interval]')


def check_datasource(where, ds, errors):
    if not isinstance(ds, dict) or ds.get('uid') != DS_UID or ds.get('type') != 'prometheus':
        errors.append(f'{where}: datasource must be {{type: prometheus, uid: {DS_UID}}}, not {ds!r}')


def check(dashboards, marks, known):
    errors = []
    uids = {}
    if set(dashboards) != set(EXPECTED_UIDS):
        errors.append(f'dashboards/*.json are {sorted(dashboards)}, expected {sorted(EXPECTED_UIDS)}')
    for name, d in dashboards.items():
        w = f'dashboards/{name}'
        if d.get('uid') != EXPECTED_UIDS.get(name):
            errors.append(f'{w}: uid {d.get("uid")!r}, expected the stable {EXPECTED_UIDS.get(name)!r}')
        uids.setdefault(d.get('uid'), []).append(name)
        if '__inputs' in d or '__requires' in d:
            errors.append(f'{w}: has __inputs/__requires (export for sharing): not provisioning-ready')
        for k in ('title', 'description'):
            if not d.get(k):
                errors.append(f'{w}: no {k}')
        if 'fabric-ladder' not in d.get('tags', []):
            errors.append(f'{w}: missing the fabric-ladder tag')
        if not any(l.get('type') == 'dashboards' and 'fabric-ladder' in l.get('tags', [])
                   for l in d.get('links', [])):
            errors.append(f'{w}: no dashboard link by the fabric-ladder tag')
        var = d.get('templating', {}).get('list', [])
        names = [v.get('name') for v in var]
        if names[:3] != ['datasource', 'job', 'instance']:
            errors.append(f'{w}: variables must start datasource, job, instance (got {names})')
        elif var[0].get('type') != 'datasource' or var[0].get('query') != 'prometheus':
            errors.append(f'{w}: the datasource variable must be type datasource, query prometheus')
        for v in var[1:]:
            check_datasource(f'{w} variable {v.get("name")}', v.get('datasource'), errors)
        for vname, selector, q in variable_queries(d):
            if selector is None:
                errors.append(f'{w} variable {vname}: {q!r} is not label_values(<selector>, <label>)')
            else:
                check_expr(f'{w} variable {vname}', selector, known,
                           fleet=vname in ('job', 'instance'), errors=errors)
                if vname == 'job' and '$' in selector:
                    errors.append(f'{w} variable job: must not depend on other variables')
        for a in d.get('annotations', {}).get('list', []):
            if a.get('builtIn'):
                continue
            check_datasource(f'{w} annotation {a.get("name")}', a.get('datasource'), errors)
            check_expr(f'{w} annotation {a.get("name")}', a.get('expr', ''), known, False, errors)
        ids = [p.get('id') for p in d.get('panels', [])]
        if len(set(ids)) != len(ids) or None in ids:
            errors.append(f'{w}: panel ids missing or not unique: {ids}')
        for p in d.get('panels', []):
            pw = f'{w} panel {p.get("title")!r}'
            gp = p.get('gridPos', {})
            if not gp or gp.get('x', 0) + gp.get('w', 0) > 24:
                errors.append(f'{pw}: gridPos {gp} does not fit the 24-column grid')
            if p.get('type') == 'row':
                continue
            if not p.get('description'):
                errors.append(f'{pw}: no description')
            if not p.get('fieldConfig', {}).get('defaults', {}).get('unit'):
                errors.append(f'{pw}: no unit (fieldConfig.defaults.unit)')
            check_datasource(pw, p.get('datasource'), errors)
            ts = p.get('targets') or []
            if not ts:
                errors.append(f'{pw}: no query')
            refs = [t.get('refId') for t in ts]
            if len(set(refs)) != len(refs):
                errors.append(f'{pw}: refIds not unique: {refs}')
    for name, title, t, m in targets(dashboards, marks):
        pw = f'{title!r} {t.get("refId")}'
        if name == COSTED:
            try:
                if m.get('cost') is None:
                    raise ValueError('no cost bound')
                cost_bound(m['cost'], {k: 1 for k in COST_SIZES})
            except (ValueError, SyntaxError) as e:
                errors.append(f'{pw}: {e}: every {COSTED} query states its cost bound '
                              f'(cost:: over {", ".join(COST_SIZES)})')
        check_datasource(pw, t.get('datasource'), errors)
        check_expr(pw, t.get('expr', ''), known, m['fleet'], errors)
        if m['noData'] is not None and not str(m['noData']).strip():
            errors.append(f'{pw}: noDataOnFixtures must say why')
    for uid, files in uids.items():
        if len(files) > 1:
            errors.append(f'uid {uid!r} used by {files}')
    return errors


def main():
    errors = []
    try:
        dashboards = load(SRC)
    except json.JSONDecodeError as e:
        print(f'dashboards: invalid JSON: {e}')
        return 1
    known = catalogue(SRC, errors) | {'ALERTS', 'ALERTS_FOR_STATE'}
    errors += check(dashboards, hidden(SRC), known)
    if errors:
        print('\n'.join(errors))
        print(f'{len(errors)} problem(s)')
        return 1
    n = sum(1 for _ in targets(dashboards, hidden(SRC)))
    print(f'ok: {len(dashboards)} dashboards, {n} queries')
    return 0


if __name__ == '__main__':
    sys.exit(main())
