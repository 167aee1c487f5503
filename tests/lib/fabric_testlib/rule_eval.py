"""The rule bundle evaluated by `promtool test rules` over what a real exporter served: its
/metrics samples as input series (as Prometheus would store them from one scrape target), every
group of rules/fabric-ladder.rules.yml in file order, and the alerts firing at a given time."""
import json
import math
import os
import re
import subprocess

import yaml

from fabric_testlib.exporter_process import SOURCE_DIR

RULES = os.path.join(SOURCE_DIR, 'rules', 'fabric-ladder.rules.yml')


_GOODPUT = re.compile(r'^fabric_flows_goodput_bytes_per_second\{(.*)\} (\S+)$')
_LABEL = re.compile(r'(\w+)="([^"]*)"')


def transfer_rates(metrics):
    """{(peer, application, direction): bytes per second} the scrape's bulk flows move, from
    their goodput gauges (a `remote_sender` flow is received here, any other is sent)."""
    rates = {}
    for line in metrics.splitlines():
        m = _GOODPUT.match(line)
        if not m:
            continue
        labels = dict(_LABEL.findall(m.group(1)))
        direction = 'receive' if labels.get('limiter') == 'remote_sender' else 'send'
        key = (labels.get('peer'), labels.get('application'), direction)
        rates[key] = rates.get(key, 0) + float(m.group(2))
    return rates


def scrape_series(metrics, instance, steps, job='fabric', step_seconds=60):
    """The samples of one scrape as promtool input series: each with job and instance added,
    the same value at `steps` + 1 evaluation steps (so that `for:` durations pass). The flows'
    transferred-bytes counters go on growing at the rate the same scrape's goodput gauges show,
    as a steady transfer's do (held still they would say nothing moves)."""
    rates = transfer_rates(metrics)
    out = []
    for line in metrics.splitlines():
        if not line or line.startswith('#'):
            continue
        series, _, value = line.rpartition(' ')
        v = float(value)
        if not math.isfinite(v):
            continue
        step = 0.0
        if series.startswith('fabric_flows_transferred_bytes_total{'):
            labels = dict(_LABEL.findall(series))
            step = rates.get((labels.get('peer'), labels.get('application'),
                              labels.get('direction')), 0) * step_seconds
        extra = f'job="{job}",instance="{instance}"'
        series = series[:-1] + ',' + extra + '}' if series.endswith('}') else series + '{' + extra + '}'
        out.append({'series': series, 'values': f'{v!r}+{step!r}x{steps}'})
    return out


def rule_groups(rules=RULES):
    """(group names in file order, alert names) of a rule file."""
    with open(rules) as f:
        data = yaml.safe_load(f)
    return ([g['name'] for g in data['groups']],
            {r['alert'] for g in data['groups'] for r in g['rules'] if 'alert' in r})


# promtool's report of a failed expression test: "got: [{labels} 1E+00, ...]".
_GOT = re.compile(r'\{([^}]*)\} 1E\+00')
# No alert has this name, so the expectation below always fails and promtool always reports
# what the query returned.
_SENTINEL = 'NoSuchAlertSentinel'


def firing_alerts(path, input_series, eval_minutes, alerts, by, rules=RULES):
    """The alerts of `alerts` firing at `eval_minutes` over `input_series` (1 m steps), as a set
    of tuples (alertname, *the values of the labels `by`, '' when absent). Writes the promtool
    test to `path`; raises RuntimeError when a rule fails to evaluate."""
    groups, _ = rule_groups(rules)
    names = '|'.join(sorted(alerts))
    query = (f'group by (alertname, {", ".join(by)}) '
             f'(ALERTS{{alertstate="firing", alertname=~"{names}"}})')
    with open(path, 'w') as f:  # JSON is YAML.
        json.dump({'rule_files': [rules], 'evaluation_interval': '1m', 'group_eval_order': groups,
                   'tests': [{'interval': '1m', 'input_series': input_series,
                              'promql_expr_test': [{
                                  'expr': query, 'eval_time': f'{eval_minutes}m',
                                  'exp_samples': [{'labels': f'{{alertname="{_SENTINEL}"}}',
                                                   'value': 1}]}]}]}, f)
    proc = subprocess.run(['promtool', 'test', 'rules', path], capture_output=True, text=True)
    out = proc.stdout + proc.stderr
    if re.search(r'\berr: ', out) or 'got:' not in out:
        raise RuntimeError('promtool did not evaluate the bundle:\n' + out)
    got = re.search(r'got: (.*)$', out, re.M).group(1)
    fired = set()
    for body in _GOT.findall(got):
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', body))
        fired.add((labels['alertname'], *(labels.get(k, '') for k in by)))
    return fired
