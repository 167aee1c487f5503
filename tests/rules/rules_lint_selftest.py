#!/usr/bin/env python3
"""rules_lint.py fails on what it exists to catch: each case copies the parts of
the source tree the lint reads into a temporary directory, breaks one thing,
and expects the lint to exit 1 naming it. Python stdlib only."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC = os.environ.get('FABRIC_SOURCE_DIR', os.path.join(os.path.dirname(__file__), '..', '..'))
LINT = os.path.join(SRC, 'tests', 'rules', 'rules_lint.py')
PARTS = ['rules', 'docs', 'tests/golden', 'exporter/scheduled_probes/probe_results_collector.cc']


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
    r = subprocess.run([sys.executable, LINT], env=dict(os.environ, FABRIC_SOURCE_DIR=d),
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


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


results = [
    unchanged_passes(),
    case('a renamed metric breaks the build',
         lambda d: edit(j(d, 'rules/mixin/alerts.libsonnet'), 'fabric_softnet_time_squeeze_total',
                        'fabric_softnet_squeezed_total'),
         r'FabricReceiveBackpressure: uses fabric_softnet_squeezed_total'),
    case('a metric in an annotation query is checked too',
         lambda d: edit(j(d, 'rules/mixin/alerts.libsonnet'), "q('fabric_probe_streams'",
                        "q('fabric_probe_stream_count'"),
         r'FabricProbeStreamLimited: uses fabric_probe_stream_count'),
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
    case('a pending name that has landed must be removed',
         lambda d: open(j(d, 'rules/tests/external_metrics.txt'), 'a').write(
             'pending fabric_tcp_timeouts_total\n'),
         r'fabric_tcp_timeouts_total is now in tests/golden'),
]
sys.exit(0 if all(results) else 1)
