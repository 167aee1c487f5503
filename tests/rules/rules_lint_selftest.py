#!/usr/bin/env python3
"""rules_lint.py fails on what it exists to catch: each case copies the parts of
the source tree the lint reads into a temporary directory, breaks one thing,
and expects the lint to exit 1 naming it. Python stdlib only."""
import os
import json
import re
import shutil
import subprocess
import sys
import tempfile

SRC = os.environ.get('FABRIC_SOURCE_DIR', os.path.join(os.path.dirname(__file__), '..', '..'))
LINT = os.path.join(SRC, 'tests', 'rules', 'rules_lint.py')
PARTS = ['rules', 'docs', 'tests/golden']


def tree():
    d = tempfile.mkdtemp(prefix='rules-lint-')
    for p in PARTS:
        src, dst = os.path.join(SRC, p), os.path.join(d, p)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        (shutil.copytree if os.path.isdir(src) else shutil.copy)(src, dst)
    return d


def edit(path, old, new, count=1):
    s = open(path).read()
    if old not in s:
        sys.exit(f'self-test is stale: {old!r} not in {path}')
    open(path, 'w').write(s.replace(old, new, count))


def lint(d):
    env = dict(os.environ, FABRIC_SOURCE_DIR=d)
    planted = os.path.join(d, 'catalogue.json')
    if os.path.exists(planted):
        env['FABRIC_PROBE_CATALOGUE'] = planted
    r = subprocess.run([sys.executable, LINT], env=env, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def catalogue():
    """The exporter's probe catalogue, as the lint reads it."""
    exporter = os.environ.get('FABRIC_EXPORTER')
    if not exporter:
        sys.exit('FABRIC_EXPORTER is not set (run through ctest)')
    out = subprocess.run([exporter, '--print-probe-catalogue'], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)


def unproduce(value):
    """A catalogue in which no probe kind produces `value`."""
    def f(d):
        c = catalogue()
        hits = [v for v in c['values'] if v['name'] == value]
        if not hits:
            sys.exit(f'self-test is stale: {value} not in the probe catalogue')
        hits[0]['producers'] = []
        json.dump(c, open(j(d, 'catalogue.json'), 'w'))
    return f


def case(name, mutate, expect):
    d = tree()
    try:
        mutate(d)
        rc, out = lint(d)
    finally:
        shutil.rmtree(d)
    ok = rc == 1 and re.search(expect, out)
    print(f'{"ok  " if ok else "FAIL"} {name}')
    if not ok:
        print(out)
    return bool(ok)


def j(d, *p):
    return os.path.join(d, *p)


def unchanged_passes():
    d = tree()
    try:
        rc, out = lint(d)
    finally:
        shutil.rmtree(d)
    print(f'{"ok  " if rc == 0 else "FAIL"} the unchanged copy passes')
    if rc:
        print(out)
    return rc == 0


def pending_holds_only_while_listed():
    """A rule reading a name no branch on main produces yet passes with its `pending` line and
    fails naming it once the line goes (the name is planted: real pending names land and go)."""
    planted = 'fabric_softnet_planted_total'
    ok = True
    for listed in (True, False):
        d = tree()
        try:
            edit(j(d, 'rules/mixin/alerts.libsonnet'), 'fabric_softnet_time_squeeze_total', planted)
            if listed:
                open(j(d, 'rules/tests/external_metrics.txt'), 'a').write(f'pending {planted}\n')
            rc, out = lint(d)
        finally:
            shutil.rmtree(d)
        good = rc == 0 if listed else rc == 1 and f'uses {planted}' in out
        if not good:
            print(out)
        ok = ok and good
    print(f'{"ok  " if ok else "FAIL"} a rule reading an unproduced name passes only while it is pending')
    return ok


results = [
    unchanged_passes(),
    case('a renamed metric breaks the build',
         lambda d: edit(j(d, 'rules/mixin/alerts.libsonnet'), 'fabric_softnet_time_squeeze_total',
                        'fabric_softnet_squeezed_total'),
         r'FabricReceiveBackpressure: uses fabric_softnet_squeezed_total'),
    case('a metric in an annotation query is checked too',
         lambda d: edit(j(d, 'rules/mixin/alerts.libsonnet'),
                        "qe('max(fabric_probe_streams{probe=\"tcp_multi\",direction=\"send\",instance=%q})'",
                        "qe('max(fabric_probe_stream_count{probe=\"tcp_multi\",direction=\"send\",instance=%q})'"),
         r'FabricTransmitAsymmetry: uses fabric_probe_stream_count'),
    case('a missing runbook section',
         lambda d: edit(j(d, 'docs/runbooks.md'), '## FabricCopyPathGap', '## Copy path gap'),
         r'FabricCopyPathGap: runbook anchor #fabriccopypathgap'),
    case('an alert without a near-miss test',
         lambda d: edit(j(d, 'rules/tests/paths.test.yml'),
                        'alertname: FabricCopyPathGap\n        exp_alerts: []',
                        'alertname: FabricCopyPathGapX\n        exp_alerts: []'),
         r'FabricCopyPathGap: no near-miss test'),
    case('a trailing acronym in a name',
         # (renamed in the shape table too, which must list every alert)
         lambda d: (edit(j(d, 'rules/mixin/alerts.libsonnet'), "'FabricMtuMismatch'",
                         "'FabricMismatchMTU'"),
                    edit(j(d, 'rules/mixin/shapes.libsonnet'), 'FabricMtuMismatch:',
                         'FabricMismatchMTU:')),
         r'FabricMismatchMTU: name ends in an all-caps acronym'),
    case('a rule reading a catalogue value no probe kind produces',
         unproduce('streams'), r'FabricProbeStreamLimited: uses fabric_probe_streams'),
    pending_holds_only_while_listed(),
    case('a pending name that has landed must be removed',
         lambda d: open(j(d, 'rules/tests/external_metrics.txt'), 'a').write(
             'pending fabric_tcp_timeouts_total\n'),
         r'fabric_tcp_timeouts_total is now in tests/golden'),
]
sys.exit(0 if all(results) else 1)
