#!/usr/bin/env python3
"""The fleet dashboard's queries that the real-process tests cannot feed,
evaluated by promtool on synthetic series (promtool test rules, no rules).

The dashboards and scale-out tests run exporters that replay recorded
results: every probed peer is a scraped node, and no latency mesh runs. So:

* the 20 worst paths, for a path to a peer whose exporter is not scraped
  (no topology row): it stays in the table, without the peer's racks, and
  a selected target rack keeps it while dropping the paths into other racks;
* the latency mesh's lossiest pairs: only pairs that lose probes, with the
  prober's node, rack and plane;
* the pairs furthest above their round-trip baseline: the ratio of the
  5-minute median to the hour before, 15 minutes ago.

Each query is taken from dashboards/fabric-fleet.json by its panel title
with Grafana's variables at All (or the one named). Exits 77 (skipped)
without promtool. Python stdlib only.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from fabric_testlib.dashboards import COSTED, load, substitute
from fabric_testlib.exporter_process import SOURCE_DIR

PROMTOOL = shutil.which('promtool')
RULES = os.path.join(SOURCE_DIR, 'rules', 'fabric-ladder.rules.yml')
TOPOLOGY = 'instance:fabric_fleet_topology:info'
NODES = (('a:9100', 'node-a', 'r1'), ('b:9100', 'node-b', 'r2'), ('c:9100', 'node-c', 'r3'))


def expr(dashboard, title_start, **variables):
    """The panel's query with the variables given and every other at All."""
    t = next(t for p in dashboard['panels'] if p.get('title', '').startswith(title_start)
             for t in p.get('targets', []))
    e = t['expr']
    for k, v in variables.items():
        e = e.replace('$' + k, v)
    return substitute(e)


def series(name, labels, values):
    return {'series': name + '{' + ', '.join(f'{k}="{v}"' for k, v in labels.items()) + '}',
            'values': values}


def topology(values):
    return [series(TOPOLOGY, {'instance': i, 'node': n, 'rack': r, 'plane': 'p0',
                              'role': 'compute'}, values) for i, n, r in NODES]


def worst_paths(d):
    """node-a's paths to node-b (r2), node-c (r3) and node-d, which no
    scraped exporter is (down, or outside the job)."""
    inputs = topology('1x10') + [
        series('instance_target_direction:fabric_path_line_ratio:min',
               {'instance': 'a:9100', 'target': t, 'direction': 'send'}, f'{v}x10')
        for t, v in (('node-b', 0.9), ('node-c', 0.8), ('node-d', 0.1))]
    a = 'direction="send", instance="a:9100", node="node-a", rack="r1", plane="p0"'
    b = f'{{{a}, target="node-b", target_rack="r2", target_plane="p0"}}'
    c = f'{{{a}, target="node-c", target_rack="r3", target_plane="p0"}}'
    d_ = f'{{{a}, target="node-d"}}'
    return {'interval': '1m', 'input_series': inputs, 'promql_expr_test': [
        {'expr': expr(d, 'The 20 worst paths'), 'eval_time': '5m',
         'exp_samples': [{'labels': b, 'value': 0.9}, {'labels': c, 'value': 0.8},
                         {'labels': d_, 'value': 0.1}]},
        {'expr': expr(d, 'The 20 worst paths', target_rack='r2'), 'eval_time': '5m',
         'exp_samples': [{'labels': b, 'value': 0.9}, {'labels': d_, 'value': 0.1}]},
    ]}


def mesh(d):
    """node-a probes node-b and node-c 12 times a minute: node-b loses 3 of
    them, node-c none; node-a's answers from node-b take up to 100 us for an
    hour, then up to 1 ms (the histogram's buckets)."""
    job = {'job': 'fabric', 'instance': 'a:9100'}
    inputs = topology('1x120') + [
        series('fabric_path_probes_total', {**job, 'target': 'node-b'}, '0+12x120'),
        series('fabric_path_lost_total', {**job, 'target': 'node-b'}, '0+3x120'),
        series('fabric_path_probes_total', {**job, 'target': 'node-c'}, '0+12x120'),
        series('fabric_path_lost_total', {**job, 'target': 'node-c'}, '0+0x120'),
    ] + [series('fabric_path_rtt_seconds_bucket', {**job, 'target': 'node-b', 'le': le},
                '0+9x60 ' + ('540+0x60' if le == '0.0001' else '540+9x60'))
         for le in ('0.0001', '0.001', '0.01', '+Inf')]
    pair = '{instance="a:9100", target="node-b", node="node-a", rack="r1", plane="p0"}'
    return {'interval': '1m', 'input_series': inputs, 'promql_expr_test': [
        {'expr': expr(d, 'Path mesh: the 20 lossiest pairs'), 'eval_time': '75m',
         'exp_samples': [{'labels': pair, 'value': 0.25}]},
        # At 75 min the baseline is the hour (0, 60 min], all answers in
        # (0, 100 us]: median 50 us by linear interpolation; the last 5
        # minutes' all in (100 us, 1 ms]: 550 us. Ratio 11.
        {'expr': expr(d, 'Path mesh: the 20 pairs furthest above'), 'eval_time': '75m',
         'exp_samples': [{'labels': pair, 'value': 11}]},
    ]}


def main():
    if not PROMTOOL:
        print('promtool not installed (scripts/setup-deps --test): skipped')
        return 77
    d = load(SOURCE_DIR)[COSTED]
    tmp = tempfile.mkdtemp(prefix='dashboards-promtool-')
    try:
        path = os.path.join(tmp, 'fleet.test.yml')
        with open(path, 'w') as f:  # JSON is YAML
            json.dump({'rule_files': [RULES], 'evaluation_interval': '1m',
                       'tests': [worst_paths(d), mesh(d)]}, f, indent=1)
        r = subprocess.run([PROMTOOL, 'test', 'rules', path], capture_output=True, text=True)
        print(r.stdout + r.stderr)
        if r.returncode:
            print('FAIL: the fleet dashboard queries above do not give what they should')
            return 1
        print('ok: worst paths (unscraped peer, target rack) and latency mesh panels')
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
