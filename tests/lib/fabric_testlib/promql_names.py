"""What the rules lint and the dashboards lint share: the catalogue of metric
names the exporter exposes, and the metric names a PromQL expression selects.
Python stdlib only; every function takes the source tree root."""
import glob
import json
import os
import re
import subprocess


def golden_metrics(src):
    """Metric names of every committed golden exposition (tests/golden/*.prom)."""
    names = set()
    for path in glob.glob(os.path.join(src, 'tests', 'golden', '*.prom')):
        for line in open(path):
            m = re.match(r'(?:# (?:TYPE|HELP) )?([a-zA-Z_:][a-zA-Z0-9_:]*)', line)
            if m and not line.startswith('# ') or line.startswith('# TYPE'):
                if m:
                    names.add(m.group(1))
    return names


_CATALOGUE = {}


def probe_catalogue(errors):
    """The exporter's probe catalogue (`fabric_exporter --print-probe-catalogue`:
    rungs, values with their producers, verdicts, record families), from the
    binary ctest names in FABRIC_EXPORTER, or from the JSON file named in
    FABRIC_PROBE_CATALOGUE (the lints' self-tests plant an edited copy)."""
    path = os.environ.get('FABRIC_PROBE_CATALOGUE')
    if path:
        return json.load(open(path))
    if 'exporter' in _CATALOGUE:
        return _CATALOGUE['exporter']
    exporter = os.environ.get('FABRIC_EXPORTER')
    if not exporter:
        errors.append('FABRIC_EXPORTER is not set (run through ctest): no probe catalogue')
        return {'values': [], 'families': []}
    out = subprocess.run([exporter, '--print-probe-catalogue'], capture_output=True, text=True)
    if out.returncode != 0:
        errors.append(f'{exporter} --print-probe-catalogue failed: {out.stderr.strip()}')
        return {'values': [], 'families': []}
    _CATALOGUE['exporter'] = json.loads(out.stdout)
    return _CATALOGUE['exporter']


def probe_metrics(src, errors):
    """fabric_probe_<value> for every value of the probe catalogue that some
    probe kind produces, and the record families (probe results depend on the
    fleet, so no golden file holds them all). A value nothing produces is not
    exposed: a rule or panel reading it is an error."""
    catalogue = probe_catalogue(errors)
    names = {v['metric'] for v in catalogue['values'] if v['producers']}
    return names | set(catalogue['families'])


def unproduced_probe_metrics(errors):
    """fabric_probe_<value> of catalogue values no probe kind produces: not
    exposed whatever else (a recorded state file in a golden tree) says."""
    catalogue = probe_catalogue(errors)
    return {v['metric'] for v in catalogue['values'] if not v['producers']}


def external_metrics(src):
    """rules/tests/external_metrics.txt as {name: kind}."""
    path = os.path.join(src, 'rules', 'tests', 'external_metrics.txt')
    names = {}
    for line in open(path):
        line = line.split('#', 1)[0].strip()
        if line:
            kind, name = line.split()
            names[name] = kind
    return names


def load_rules(src):
    """The rule groups as the jsonnet mixin builds them, and the runbook base."""
    out = subprocess.run(
        ['jsonnet', '-J', os.path.join(src, 'rules'), '-e',
         "local m = import 'mixin/mixin.libsonnet'; "
         "{ groups: m.prometheusRules.groups + m.prometheusAlerts.groups, "
         "base: m._config.runbookBase }"],
        capture_output=True, text=True, check=True).stdout
    return json.loads(out)


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
