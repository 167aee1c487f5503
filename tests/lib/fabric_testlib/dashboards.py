"""The dashboards as files (dashboards/*.json) and as their jsonnet source,
which also carries what the JSON leaves out: per target, whether it is fleet-
wide, why it may have no data on the test fleet, and (fleet dashboard) the
bound on the samples it may load. And their queries evaluated through a real
Prometheus' HTTP API, with Grafana's variables substituted (the dashboards
test and the scale-out test share this). Python stdlib only."""
import ast
import glob
import json
import os
import re
import subprocess

from fabric_testlib.fixture_fleet import api

EXPECTED_UIDS = {
    'fabric-fleet.json': 'fabric-ladder-fleet',
    'fabric-ladder.json': 'fabric-ladder-ladder',
    'fabric-node.json': 'fabric-ladder-node',
    'fabric-probes.json': 'fabric-ladder-probes',
    'fabric-transfers.json': 'fabric-ladder-transfers',
}

# Per file, per non-row panel, per target: the hidden fields.
_HIDDEN = r"""
local b = import 'build.jsonnet';
local hidden(t, f) = if std.objectHasAll(t, f) then t[f] else null;
{
  [f]: [
    [{ noData: hidden(t, 'noDataOnFixtures'), fleet: hidden(t, 'fleet') == true,
       cost: hidden(t, 'cost') } for t in p.targets]
    for p in b[f].panels if p.type != 'row'
  ]
  for f in std.objectFields(b)
}
"""


def load(src):
    """{file name: dashboard dict} of the committed JSON files."""
    out = {}
    for path in sorted(glob.glob(os.path.join(src, 'dashboards', '*.json'))):
        with open(path) as f:
            out[os.path.basename(path)] = json.load(f)
    return out


def hidden(src):
    out = subprocess.run(['jsonnet', '-J', os.path.join(src, 'dashboards'), '-e', _HIDDEN],
                         cwd=os.path.join(src, 'dashboards'), capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)


def targets(dashboards, marks):
    """(file, panel title, target dict, hidden marks) for every panel query."""
    for name, d in dashboards.items():
        panels = [p for p in d.get('panels', []) if p.get('type') != 'row']
        for i, p in enumerate(panels):
            for j, t in enumerate(p.get('targets', [])):
                try:
                    m = marks[name][i][j]
                except (KeyError, IndexError):
                    m = {'noData': None, 'fleet': False, 'cost': None}
                yield name, p.get('title', '?'), t, m


def variable_queries(d):
    """(variable name, PromQL selector) of each label_values() query variable."""
    for v in d.get('templating', {}).get('list', []):
        if v.get('type') != 'query':
            continue
        q = v.get('query')
        q = q.get('query', '') if isinstance(q, dict) else (q or '')
        m = re.match(r'^label_values\((.*),\s*(\w+)\)$', q)
        yield v['name'], (m.group(1) if m else None), q


# Grafana's variables as the tests substitute them: every value ("All"), the
# widest (and costliest) selection.
VARIABLES = {
    '$__rate_interval': '15s', '$__interval': '1s', '$__range': '1m',
    '$job': 'fabric', '$instance': '.+', '$target': '.+', '$probe': '.+', '$application': '.+',
    '$rack': '.+', '$plane': '.+', '$target_rack': '.+', '$worst': '20',
}


def substitute(expr):
    for k in sorted(VARIABLES, key=len, reverse=True):
        expr = expr.replace(k, VARIABLES[k]).replace('${%s}' % k[1:], VARIABLES[k])
    return expr


def evaluate(base, expr):
    """An instant query of expr (variables substituted) with `stats=all`:
    {'series': [...], 'error': str or None, 'samples': totalQueryableSamples
    (every sample the selectors loaded, what the query costs the server) or
    None}."""
    r = api(base, '/api/v1/query', query=substitute(expr), stats='all')
    if r.get('status') != 'success':
        return {'series': [], 'error': r.get('error', 'unknown error'), 'samples': None}
    stats = r['data'].get('stats', {}).get('samples', {})
    return {'series': r['data']['result'], 'error': None,
            'samples': stats.get('totalQueryableSamples')}


# The dashboard whose queries carry a `cost` bound, and the dimensions a bound
# may name (dashboards/src/fleet.libsonnet says what each is).
COSTED = 'fabric-fleet.json'
COST_SIZES = ('N', 'R', 'D', 'V', 'L', 'A', 'M')


def selectors(expr, name):
    """The label matchers written after each occurrence of metric `name`."""
    masked = re.sub(r'"(?:[^"\\]|\\.)*"', lambda m: '"' + '_' * (len(m.group(0)) - 2) + '"', expr)
    out = []
    for m in re.finditer(r'(?<![\w:])%s(?![\w:])' % re.escape(name), masked):
        rest = expr[m.end():]
        sm = re.match(r'\s*\{([^}]*)\}', rest)
        out.append(sm.group(1) if sm else '')
    return out


def cost_bound(formula, sizes):
    """The bound a target's `cost` mark states, e.g. 'N*D + 2*N', evaluated over
    sizes ({'N': 8, ...}); only names of sizes, integers, + and * are allowed,
    so a bound reads as a polynomial in the fleet's dimensions."""
    tree = ast.parse(formula, mode='eval')
    for node in ast.walk(tree):
        ok = isinstance(node, (ast.Expression, ast.BinOp, ast.Add, ast.Mult, ast.Load)) or (
            isinstance(node, ast.Constant) and isinstance(node.value, int)) or (
            isinstance(node, ast.Name) and node.id in sizes)
        if not ok:
            raise ValueError(f'cost {formula!r}: only {sorted(sizes)}, integers, + and *')
    return eval(compile(tree, formula, 'eval'), {'__builtins__': {}}, dict(sizes))
