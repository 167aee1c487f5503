#!/usr/bin/env python3
"""Scale-out on Prometheus' own engines, with real processes.

Eight real fabric_exporter processes (node-01..node-08, four racks of two, two
planes) replay the nics tree's recorded probe results, re-dated to now and
renamed so each node probes the next two on a ring. Two faults are injected
in the recordings:
  - every node's multi-stream TCP send result to its second ring peer is
    flagged cpu_bound, so FabricProbeHarnessLimited{probe="tcp_multi"}
    (for: 0m, once per node and rung) fires once on each node, and the fleet
    circuit breaker, counting nodes across both shards, once for shape
    "instrument";
  - node-05's multi-stream TCP send to node-06 is cut to a tenth, so
    FabricPathFarBelowPeers, a fleet-median rule, holds (pending: it has a
    15-minute `for`) for that one path, against the median of the paths the
    evaluating server sees.
Two Prometheus servers in agent mode each scrape a disjoint part of the fleet
(hashmod relabelling on a stable per-target label, as docs/scale.md deploys
it) and remote-write to a central Prometheus (--web.enable-remote-write-
receiver) that evaluates the rule bundle. A fourth Prometheus scrapes the
whole fleet itself with the same rules: the reference.

The test asserts that the two agents split the fleet (both non-empty,
disjoint, together every node), that the central server has every node's
ladder recording rules with the reference's values and the rack aggregates of
rules/mixin/fleet.libsonnet, and that the central server raises exactly the
alerts (firing and pending, with their labels) the reference raises, the
injected faults among them, each exactly once per node it was injected on, and
the fleet circuit breaker once for the shape every node's recording shares. Alerts are compared once both
servers agree or after 90 s; a difference then is printed and fails.

On the central server, every query of the fleet dashboard (dashboards/
fabric-fleet.json, its variables too) must evaluate, return series and load at
most the samples (`stats=all`: totalQueryableSamples) its source's `cost`
bound allows for this fleet, and read per-pair series of at most the mesh
degree's peers per node (dashboard_cost). The negative control (shard_control):
each agent also writes its part to a shard view that evaluates the bundle on
that part alone; the smaller shard's view fires its nodes' instrument alerts
and still no circuit breaker, which the central server raises, and neither
view's alerts equal the reference's.

Exits 77 (skipped) when prometheus or jsonnet is not installed.
"""
import json
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

from fabric_testlib.dashboards import (COSTED, cost_bound, evaluate, hidden, load, selectors,
                                      substitute, targets, variable_queries)
from fabric_testlib.exporter_process import SOURCE_DIR, Exporter
from fabric_testlib.fixture_fleet import (PROCFS, PROMETHEUS, RULES, Prometheus, api, build_tree,
                                          exporter_config, recorded_results, wait_until,
                                          write_recording)
from fabric_testlib.promql_names import metric_names

NODES = {f'node-{i:02d}': {'address': f'192.0.2.{30 + i}', 'rack': f'r{(i + 1) // 2}',
                           'plane': f'p{i % 2}', 'role': 'compute'} for i in range(1, 9)}
NAMES = list(NODES)
SHARDS = 2
PEERS = 2                               # per-pair results per node: the next two on the ring
PATH_FAULT = ('node-05', 'node-06')     # a tenth of the multi-stream TCP send rate


def recording(tmp, node):
    """node's results: the nics recording's peers node-b, node-c renamed to the
    next two nodes on the ring, dated a minute ago (fresh: no stale alerts)."""
    i = NAMES.index(node)
    peers = {'node-b': NAMES[(i + 1) % len(NAMES)], 'node-c': NAMES[(i + PEERS) % len(NAMES)]}
    state = recorded_results()
    now = time.time()
    for r in state['results']:
        r['target'] = peers.get(r['target'], r['target'])
        r['timestamp'] = now - 60
        # The second ring peer: never PATH_FAULT's path, which must stay a clean result.
        if (r['probe'] == 'tcp_multi' and r['direction'] == 'send'
                and r['target'] == peers['node-c']):
            r['verdicts']['cpu_bound'] = True
        if (r['probe'] == 'tcp_multi' and r['direction'] == 'send'
                and (node, r['target']) == PATH_FAULT):
            for k in ('throughput_bytes_per_second', 'bytes', 'stream_min_bytes_per_second',
                      'stream_max_bytes_per_second'):
                if k in r['values']:
                    r['values'][k] /= 10
    return write_recording(tmp, node, state)


def scrape_config(exporters, shard=None):
    """Job "fabric" over the fleet; with shard, only the targets whose hashmod of
    their `node` label is that shard (the relabelling docs/scale.md uses)."""
    statics = '\n'.join(f"  - targets: ['{urllib.parse.urlsplit(e.base_url).netloc}']\n"
                        f"    labels: {{fabric_shard_key: '{n}'}}" for n, e in exporters.items())
    relabel = ''
    if shard is not None:
        relabel = ('  relabel_configs:\n'
                   f'  - {{source_labels: [fabric_shard_key], modulus: {SHARDS}, '
                   'target_label: __tmp_shard, action: hashmod}\n'
                   f"  - {{source_labels: [__tmp_shard], regex: '{shard}', action: keep}}\n"
                   '  - {regex: fabric_shard_key, action: labeldrop}\n')
    else:
        relabel = '  relabel_configs:\n  - {regex: fabric_shard_key, action: labeldrop}\n'
    return f'scrape_configs:\n- job_name: fabric\n  static_configs:\n{statics}\n{relabel}'


def alerts(prom):
    """{(alertname, alertstate, labels...)} of the bundle's alerts."""
    out = set()
    for s in prom.try_query('ALERTS{alertname=~"Fabric.*"}'):
        out.add(tuple(sorted((k, v) for k, v in s['metric'].items() if k != '__name__')))
    return out


def by_instance(prom, expr):
    return {s['metric'].get('instance') for s in prom.try_query(expr)}


def values(prom, expr):
    return {tuple(sorted(s['metric'].items())): round(float(s['value'][1]), 6)
            for s in prom.try_query(expr)}


def mixin_config(key):
    """A threshold of the rule bundle (rules/mixin), as the rules use it."""
    out = subprocess.run(['jsonnet', '-e', f"(import 'rules/mixin/mixin.libsonnet')._config.{key}"],
                         cwd=SOURCE_DIR, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def one(prom, expr):
    r = prom.try_query(expr)
    return int(float(r[0]['value'][1])) if r else 0


def dashboard_cost(central, failures):
    """Every query of the fleet dashboard (its panels and variables, every
    variable at All) on the central server, once the scenario's records and
    alerts are there: each must evaluate and return series (this fleet has
    every rack, ladder, path record and a firing shaped alert, so an empty
    panel is a broken query; only the latency mesh's, marked noDataOnFixtures,
    have none), and load at most the samples its source's `cost` mark allows
    for this fleet (dashboards/src/fleet.libsonnet): bounds linear in the nodes
    (per-pair panels in nodes x mesh degree). Variables select one series per
    node (build info, topology): bound N."""
    dashboards = {COSTED: load(SOURCE_DIR)[COSTED]}
    queries = [(f'{title!r} {t["refId"]}', t['expr'], m['cost'], m['noData'])
               for _, title, t, m in targets(dashboards, hidden(SOURCE_DIR))]
    queries += [(f'variable {v}', sel, 'N', None)
                for v, sel, _ in variable_queries(dashboards[COSTED])]
    results = [evaluate(central.base, expr) for _, expr, _, _ in queries]
    # Measured after the queries: firing alerts only grow during the run
    # (the pending ones have `for`s of 15 minutes and more), so a bound is
    # never taken from fewer alerts than its query saw.
    sizes = {'N': len(NODES), 'R': len({n['rack'] for n in NODES.values()}), 'D': PEERS,
             # The bundle's directions per path, ladder layers and firing alert
             # series per node, as the central server has them.
             'V': one(central, 'count(count by (direction) '
                               '(instance_target_direction:fabric_path_line_ratio:min))'),
             'L': one(central, 'count(count by (layer) (instance:fabric_ladder_line_ratio:max))'),
             'A': one(central, 'max(count by (instance) (ALERTS{alertstate="firing"}))'),
             # No latency mesh: the exporters replay recorded results, and the
             # fleet's addresses answer no connects.
             'M': 0}
    rows = []
    for (where, expr, bound, no_data), r in zip(queries, results):
        limit = cost_bound(bound, sizes) if bound else None
        rows.append(f'  {r["samples"]!s:>5} <= {limit!s:>5} ({bound}): {where}')
        if r['error']:
            failures.append(f'{COSTED} {where}: {r["error"]}')
        elif not r['series'] and no_data is None:  # marked: the latency mesh, off here
            failures.append(f'{COSTED} {where}: no series on the central server')
        elif limit is None or r['samples'] is None or r['samples'] > limit:
            failures.append(f'{COSTED} {where}: loads {r["samples"]} samples, bound {bound} = '
                            f'{limit} at {sizes}')
    print(f'{COSTED} on central, samples loaded <= bound ({sizes}):\n' + '\n'.join(rows))
    # The totals cannot tell N * (N - 1) from N * D at this size: 8 nodes
    # with 7 peers each are as many as 8 nodes' D * V + 3 per-pair and
    # per-node series (the worst paths, when they joined every peer's
    # topology, loaded exactly what they load now: 96). So every per-pair
    # series a query reads (one with a `target`) is checked to be one of the
    # node's D mesh peers (or of its M latency mesh peers), whatever the
    # fleet's size: no panel reads per-peer series of all the peers.
    peer_limit = max(sizes['D'], sizes['M'])
    for where, expr, _, _ in queries:
        e = substitute(expr)
        for name in sorted(metric_names(e)):
            for matchers in selectors(e, name):
                sel = '%s{%s}' % (name, ', '.join(m for m in (matchers, 'target!=""') if m))
                try:
                    r = central.query(
                        f'max(count by (instance) (count by (instance, target) ({sel})))')
                except RuntimeError as err:
                    failures.append(f'{COSTED} {where}: counting the targets of {sel}: {err}')
                    continue
                peers = int(float(r[0]['value'][1])) if r else 0
                if peers > peer_limit:
                    failures.append(f'{COSTED} {where}: reads {sel} of {peers} targets per node, '
                                    f'more than the mesh degree D = {sizes["D"]} '
                                    f'(latency mesh M = {sizes["M"]})')


def breaker_evaluations(prom):
    """The breaker group's last evaluation time as Prometheus reports it (a
    string that changes with each evaluation), or None."""
    r = api(prom.base, '/api/v1/rules', type='alert')
    for g in r.get('data', {}).get('groups', []):
        if g['name'] == 'fabric-ladder.breaker':
            return g.get('lastEvaluation')
    return None


def shard_control(views, split, address, reference, failures):
    """The negative control: the bundle evaluated on each shard's part alone
    (the shard views, fed by the same agents). Without it the central checks
    cannot tell a global view from any server that sees some nodes: the
    circuit breaker counts nodes of one shape against count(up), and needs at
    least fleetShapeMinNodes of them. Two disjoint shards of 8 nodes leave one
    with at most 4, below that minimum (5), so that shard's view must raise
    every one of its nodes' instrument alerts (the breaker's cause is there)
    and still no FabricFleetWideShape, which the central server raises (checked
    above). Absence is waited for by conditions, not time: once the view fires
    every per-node alert, two more evaluations of the breaker's group must see
    them. And each view's alerts differ from the reference's: the comparison
    central = reference is not one any server passes.

    (The path fault is no such control: the shard holding node-05 holds 3 or
    more clean paths, enough for the fleet-median rule to find the slow one
    within the shard; printed, not asserted.)"""
    minimum = mixin_config('fleetShapeMinNodes')
    small = min(range(SHARDS), key=lambda i: len(split[i]))
    if len(split[small]) >= minimum:
        failures.append(f'negative control: the smaller shard has {len(split[small])} nodes, not '
                        f'fewer than fleetShapeMinNodes ({minimum}): use more shards')
        return
    view = views[small]
    nodes = split[small]

    def instrument():
        return by_instance(view, 'ALERTS{alertname="FabricProbeHarnessLimited", '
                                 'probe="tcp_multi", alertstate="firing"}')
    if not wait_until(lambda: instrument() == nodes, 90, step=1):
        failures.append(f'negative control: shard {small} view fires the instrument alert for '
                        f'{sorted(instrument())}, want its nodes {sorted(nodes)}')
        return
    seen = breaker_evaluations(view)
    evaluations = []

    def evaluated_twice():
        e = breaker_evaluations(view)
        if e != seen and e not in evaluations:
            evaluations.append(e)
        return len(evaluations) >= 2
    if not wait_until(evaluated_twice, 60, step=0.5):
        failures.append(f'negative control: shard {small} view did not evaluate its breaker twice '
                        f'after its nodes\' alerts fired ({seen}, then {evaluations})')
        return
    breaker = view.try_query('ALERTS{alertname="FabricFleetWideShape"}')
    if breaker:
        failures.append(f'negative control: shard {small} view ({len(nodes)} nodes) raises '
                        f'FabricFleetWideShape: {[b["metric"] for b in breaker]}')
    else:
        print(f'negative control: shard {small} view ({len(nodes)} nodes, all firing the '
              f'instrument alert) raises no FabricFleetWideShape; central does')
    a5 = address[PATH_FAULT[0]]
    for i, v in enumerate(views):
        got, ref = alerts(v), alerts(reference)
        if got == ref:
            failures.append(f'negative control: shard {i} view raises exactly the reference\'s '
                            f'{len(ref)} alerts: the central comparison would not discriminate')
        path = v.try_query(f'ALERTS{{alertname="FabricPathFarBelowPeers", instance="{a5}"}}')
        wide = v.try_query('ALERTS{alertname="FabricFleetWideShape"}')
        print(f'shard {i} view ({len(split[i])} nodes): {len(got)} alerts (reference {len(ref)}), '
              f'FabricPathFarBelowPeers for {PATH_FAULT[0]}: {"yes" if path else "no"}, '
              f'FabricFleetWideShape: {"yes" if wide else "no"}')


def main():
    if not PROMETHEUS or not shutil.which('jsonnet'):
        # jsonnet: the dashboards' cost marks and the mixin's thresholds.
        print('prometheus or jsonnet not installed (scripts/setup-deps --test): skipped')
        return 77
    started = time.monotonic()
    tmp = tempfile.mkdtemp(prefix='scale-out-')
    running = []
    failures = []
    try:
        sys_dir = build_tree(tmp)
        exporters = {}
        for node in NODES:
            e = Exporter('--path.procfs=' + PROCFS, '--path.sysfs=' + sys_dir,
                         '--config.file=' + exporter_config(tmp, node, NODES, recording(tmp, node)))
            exporters[node] = e.__enter__()
            running.append(e)
        address = {n: urllib.parse.urlsplit(e.base_url).netloc for n, e in exporters.items()}
        fast = 'global: {scrape_interval: 1s, evaluation_interval: 1s}\n'
        central = Prometheus(tmp, 'central', fast + f"rule_files: ['{RULES}']\n", receiver=True)
        running.append(central.__enter__())
        def write(*servers):
            return 'remote_write:\n' + ''.join(
                f'- url: {p.base}/api/v1/write\n  queue_config: {{batch_send_deadline: 1s}}\n'
                for p in servers)
        # The negative control's shard views: each agent also writes its own
        # part to a server evaluating the bundle on that part alone (what a
        # deployment that runs the rules at the shards would alert on).
        views = []
        for shard in range(SHARDS):
            v = Prometheus(tmp, f'shard-{shard}', fast + f"rule_files: ['{RULES}']\n",
                           receiver=True)
            running.append(v.__enter__())
            views.append(v)
        agents = []
        for shard in range(SHARDS):
            a = Prometheus(tmp, f'agent-{shard}', fast.replace(', evaluation_interval: 1s', '')
                           + scrape_config(exporters, shard) + write(central, views[shard]),
                           agent=True)
            running.append(a.__enter__())
            agents.append(a)
        reference = Prometheus(tmp, 'reference',
                               fast + f"rule_files: ['{RULES}']\n" + scrape_config(exporters))
        running.append(reference.__enter__())
        print(f'{len(exporters)} exporters, {SHARDS} agents, central, {SHARDS} shard views and '
              f'reference Prometheus started in {time.monotonic() - started:.1f} s')

        # The agents split the fleet: disjoint, both non-empty, every node once.
        def shard_targets():
            got = []
            for a in agents:  # agents answer no queries, but list their targets
                t = api(a.base, '/api/v1/targets')
                if t.get('status') != 'success':
                    return []
                got.append({x['labels']['instance'] for x in t['data']['activeTargets']})
            return got
        wait_until(lambda: sum(len(s) for s in shard_targets()) == len(NODES), 30)
        split = shard_targets()
        print('agent shards: ' + ' | '.join(
            ','.join(sorted(n for n, a in address.items() if a in s)) for s in split))
        if (len(split) != SHARDS or any(not s for s in split)
                or set().union(*split) != set(address.values())
                or sum(len(s) for s in split) != len(NODES)):
            failures.append(f'the agents do not split the fleet in {SHARDS} disjoint parts: {split}')

        # Every node's ladder, the per-rack aggregates over every rack, and the
        # same values as the reference (waited for: the aggregates lag the
        # ladder by a few rule evaluations, and remote write by its batches).
        ladder = 'instance_target_direction:fabric_ladder_bytes_per_second:max'
        matrix = 'rack_target_rack_direction:fabric_path_line_ratio:min'
        compared = (ladder, 'instance:fabric_ladder_line_ratio:max', matrix,
                    'rack:fabric_ladder_line_ratio:median')
        want = set(address.values())
        racks = {n['rack'] for n in NODES.values()}

        def rows(prom):
            return {s['metric']['rack'] for s in prom.try_query(matrix)}

        def aggregates_agree():
            return (by_instance(central, ladder) == want and rows(central) == racks
                    and all(values(central, e) == values(reference, e) for e in compared))
        if wait_until(aggregates_agree, 60):
            print(f'central ladder and rack aggregates = reference after '
                  f'{time.monotonic() - started:.1f} s')
        got = by_instance(central, ladder)
        if got != want:
            failures.append(f'central ladder has {len(got)} of {len(want)} nodes: '
                            f'missing {sorted(want - got)}')
        for expr in compared:
            c, r = values(central, expr), values(reference, expr)
            if c != r or not c:
                failures.append(f'{expr}: central has {len(c)} series, reference {len(r)}, '
                                f'differing: {sorted(set(c.items()) ^ set(r.items()))[:6]}')
        if rows(central) != racks:
            failures.append(f'rack matrix rows {sorted(rows(central))}, want {sorted(racks)}')

        # The alerts: the same on both, the injected faults each once where
        # injected: the instrument alert once per node (and rung), and the
        # circuit breaker, counting nodes across both shards, once for shape
        # "instrument". The single-stream rung's cpu_bound flags in the nics
        # recording raise nothing: one stream is one core's ceiling.
        a5 = address[PATH_FAULT[0]]
        expected = [
            ({'alertname': 'FabricProbeHarnessLimited', 'probe': 'tcp_multi', 'instance': a},
             {'alertstate': 'firing', 'shape': 'instrument'}) for a in address.values()
        ] + [
            ({'alertname': 'FabricPathFarBelowPeers'},
             {'alertstate': 'pending', 'instance': a5, 'target': PATH_FAULT[1],
              'direction': 'send'}),
            ({'alertname': 'FabricFleetWideShape'}, {'alertstate': 'firing', 'shape': 'instrument'}),
        ]

        def matching(found, select):
            return [dict(a) for a in found if all(dict(a).get(k) == v for k, v in select.items())]

        def settled():
            c = alerts(central)
            return c == alerts(reference) and all(len(matching(c, s)) == 1 for s, _ in expected)
        wait_until(settled, 90, step=1)
        c, r = alerts(central), alerts(reference)
        for a in sorted(c - r):
            failures.append(f'central only: {dict(a)}')
        for a in sorted(r - c):
            failures.append(f'reference only: {dict(a)}')
        for select, want_labels in expected:
            got = matching(c, select)
            if len(got) != 1 or any(got[0].get(k) != v for k, v in want_labels.items()):
                failures.append(f'{select}: want one alert with {want_labels}, central has {got}')
        print(f'alerts on central: {len(c)} '
              f'({", ".join(sorted({dict(a)["alertname"] + "/" + dict(a)["alertstate"] for a in c}))})')
        dashboard_cost(central, failures)
        shard_control(views, split, address, reference, failures)
        # What docs/scale.md quotes: series per node and what the central
        # server stores, by kind (printed, not asserted: they move with the
        # exporter's metrics and the rule bundle).
        per_node = one(reference, 'max(scrape_samples_scraped{job="fabric"})')
        head = one(central, 'count({__name__=~".+"})')
        records = one(central, 'count({__name__=~".+:.+"})')
        per_rack = one(central, 'count({__name__=~"rack.*:.+"})')
        print(f'series per node (scrape_samples_scraped, max): {per_node}; central series: '
              f'{head} (recording rules: {records}, of them per rack: {per_rack})')
        if failures:
            for p in (central, reference):
                print(f'--- {p.name} log\n{p.log_tail(1500)}')
            print('\n'.join('FAIL: ' + f for f in failures))
            return 1
        print(f'ok: central (fed by {SHARDS} agents) = reference on {len(c)} alerts and every '
              f'node\'s ladder; {time.monotonic() - started:.1f} s')
        return 0
    finally:
        for p in reversed(running):
            p.__exit__(None, None, None)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
