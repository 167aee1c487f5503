"""The dashboards as files (dashboards/*.json) and as their jsonnet source,
which also carries what the JSON leaves out: per target, whether it is fleet-
wide and why it may have no data on the test fleet. Python stdlib only."""
import glob
import json
import os
import re
import subprocess

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
    [{ noData: hidden(t, 'noDataOnFixtures'), fleet: hidden(t, 'fleet') == true } for t in p.targets]
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
                    m = {'noData': None, 'fleet': False}
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
