#!/usr/bin/env python3
"""The Alertmanager example is valid, routes fabric-ladder alerts as its
comments say (amtool, offline), and its inhibit rules hold back what they say:
a real Alertmanager (Debian's prometheus-alertmanager) is sent alerts through
its API and asked which are inhibited, by what. The inhibition part is
skipped (with a message, not a failure) when only amtool is installed.
Python stdlib only."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from fabric_testlib import listening

SRC = os.environ.get('FABRIC_SOURCE_DIR', os.path.join(os.path.dirname(__file__), '..', '..'))
CONFIG = os.path.join(SRC, 'deploy', 'examples', 'alertmanager.yml')
ALERTMANAGER = shutil.which('prometheus-alertmanager') or shutil.which('alertmanager')

subprocess.run(['amtool', 'check-config', CONFIG], check=True, stdout=subprocess.DEVNULL)
cases = [
    (['alertname=FabricTransfersFarBelowLadder', 'severity=critical'], 'fabric-pager'),
    (['alertname=FabricLayerRegression', 'severity=warning'], 'fabric-tickets'),
    (['alertname=FabricSingleStreamCeiling', 'severity=info'], 'fabric-dashboard'),
    (['alertname=FabricFleetWideShape', 'severity=warning', 'shape=7'], 'fabric-tickets'),
]
failed = 0
for labels, want in cases:
    got = subprocess.run(['amtool', 'config', 'routes', 'test', '--config.file=' + CONFIG] + labels,
                         capture_output=True, text=True).stdout.strip()
    if got != want:
        print(f'{labels}: routed to {got!r}, want {want!r}')
        failed += 1

# (labels, the alertname that inhibits it or None). The breaker fires for shape 7
# and for the instrument's FabricProbeFailing.
ALERTS = [
    ({'alertname': 'FabricFleetWideShape', 'severity': 'warning', 'shape': '7'}, None),
    # Shape 7 on two nodes: held back under the breaker.
    ({'alertname': 'FabricStorageWriteBelowFleet', 'severity': 'warning', 'shape': '7',
      'instance': 'n01', 'target': '/data'}, 'FabricFleetWideShape'),
    ({'alertname': 'FabricStorageWriteFarBelowRead', 'severity': 'warning', 'shape': '7',
      'instance': 'n02', 'target': '/data'}, 'FabricFleetWideShape'),
    # Another shape: not the shared cause, still notified (the near miss).
    ({'alertname': 'FabricMtuMismatch', 'severity': 'warning', 'shape': '13',
      'instance': 'n03', 'target': 'n04'}, None),
    # No shape (the page): never inhibited by the breaker.
    ({'alertname': 'FabricTransfersFarBelowLadder', 'severity': 'critical',
      'instance': 'n01', 'target': 'n02'}, None),
    # The existing rule still works: an exporter down holds back its stale probes.
    ({'alertname': 'FabricExporterDown', 'severity': 'warning', 'shape': 'instrument',
      'instrument_alert': 'FabricExporterDown', 'instance': 'n05'}, None),
    ({'alertname': 'FabricProbeStale', 'severity': 'warning', 'shape': 'instrument',
      'instrument_alert': 'FabricProbeStale', 'instance': 'n05', 'probe': 'tcp_multi',
      'target': 'n01'}, 'FabricExporterDown'),
    # The breaker for the instrument counts one kind (instrument_alert): probes
    # failing fleet-wide (a rotated secret) hold back the per-node
    # FabricProbeFailing alerts, never a real instrument alert of another kind:
    # a collector failing on one node, an exporter down (n05 above), a stale
    # probe, a node whose results were contended.
    ({'alertname': 'FabricFleetWideShape', 'severity': 'warning', 'shape': 'instrument',
      'instrument_alert': 'FabricProbeFailing'}, None),
    ({'alertname': 'FabricProbeFailing', 'severity': 'warning', 'shape': 'instrument',
      'instrument_alert': 'FabricProbeFailing', 'instance': 'n30', 'probe': 'tcp_multi',
      'target': 'n31', 'reason': 'auth'}, 'FabricFleetWideShape'),
    ({'alertname': 'FabricCollectorFailing', 'severity': 'warning', 'shape': 'instrument',
      'instrument_alert': 'FabricCollectorFailing', 'instance': 'n32',
      'collector': 'netdev'}, None),
    ({'alertname': 'FabricProbeHarnessLimited', 'severity': 'info', 'shape': 'instrument',
      'instrument_alert': 'FabricProbeHarnessLimited', 'instance': 'n33', 'probe': 'tcp_multi',
      'verdict': 'contended'}, None),
    # The latency mesh. n10 is dead: most of its probers lose it (the per-target
    # alert, naming n10's instance), so their per-path alerts to it and n10's own
    # FabricExporterDown are held back; a lossy path to another node is not.
    ({'alertname': 'FabricPathTargetLossy', 'severity': 'warning', 'instance': 'n10',
      'target': 'n10'}, None),
    ({'alertname': 'FabricPathLoss', 'severity': 'warning', 'instance': 'n11',
      'target': 'n10'}, 'FabricPathTargetLossy'),
    ({'alertname': 'FabricPathLoss', 'severity': 'warning', 'instance': 'n12',
      'target': 'n10'}, 'FabricPathTargetLossy'),
    ({'alertname': 'FabricPathRttJump', 'severity': 'warning', 'instance': 'n13',
      'target': 'n10'}, 'FabricPathTargetLossy'),
    ({'alertname': 'FabricExporterDown', 'severity': 'warning', 'shape': 'instrument',
      'instrument_alert': 'FabricExporterDown', 'instance': 'n10'}, 'FabricPathTargetLossy'),
    ({'alertname': 'FabricPathLoss', 'severity': 'warning', 'instance': 'n11',
      'target': 'n14'}, None),
    # n20's own uplink drops: it loses most of its targets (the per-source alert)
    # and most of its probers lose it. Its per-path alerts and the per-target
    # alert for it are held back under the per-source one; the per-target alert,
    # inhibited itself, still holds back its probers' per-path alerts to n20.
    ({'alertname': 'FabricPathSourceLossy', 'severity': 'warning', 'instance': 'n20'}, None),
    ({'alertname': 'FabricPathLoss', 'severity': 'warning', 'instance': 'n20',
      'target': 'n21'}, 'FabricPathSourceLossy'),
    ({'alertname': 'FabricPathRttJump', 'severity': 'warning', 'instance': 'n20',
      'target': 'n22'}, 'FabricPathSourceLossy'),
    ({'alertname': 'FabricPathTargetLossy', 'severity': 'warning', 'instance': 'n20',
      'target': 'n20'}, 'FabricPathSourceLossy'),
    ({'alertname': 'FabricPathLoss', 'severity': 'warning', 'instance': 'n23',
      'target': 'n20'}, 'FabricPathTargetLossy'),
    # One lossy path between two healthy nodes (the near miss): notified.
    ({'alertname': 'FabricPathLoss', 'severity': 'warning', 'instance': 'n24',
      'target': 'n25'}, None),
]


def call(base, path, body=None):
    req = urllib.request.Request(base + path, method='POST' if body is not None else 'GET',
                                 data=json.dumps(body).encode() if body is not None else None,
                                 headers={'Content-Type': 'application/json'})
    with urllib.request.urlopen(req, timeout=5) as r:
        text = r.read()
        return json.loads(text) if text else None


def check_inhibition():
    """Number of failed inhibition cases."""
    tmp = tempfile.mkdtemp(prefix='alertmanager-test-')
    log_path = os.path.join(tmp, 'alertmanager.log')

    def launch(port):
        with open(log_path, 'w') as log:
            return subprocess.Popen([ALERTMANAGER, '--config.file=' + CONFIG,
                                     '--storage.path=' + tmp,
                                     f'--web.listen-address=127.0.0.1:{port}',
                                     '--cluster.listen-address='],
                                    stdout=log, stderr=subprocess.STDOUT)
    try:
        am, port = listening.start(launch, 'alertmanager')
    except RuntimeError as e:
        print(open(log_path).read()[-2000:])
        print(f'FAIL: {e}')
        shutil.rmtree(tmp, ignore_errors=True)
        return 1
    base = f'http://127.0.0.1:{port}'
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                call(base, '/api/v2/status')
                break
            except (urllib.error.URLError, ConnectionError):
                if time.monotonic() > deadline or am.poll() is not None:
                    print(open(log_path).read()[-2000:])
                    print('FAIL: Alertmanager did not start')
                    return 1
                time.sleep(0.2)
        call(base, '/api/v2/alerts', [{'labels': labels} for labels, _ in ALERTS])

        def state():
            """{(alertname, instance, target, shape): sorted names of what inhibits it}."""
            got = call(base, '/api/v2/alerts')
            fp_name = {a['fingerprint']: a['labels']['alertname'] for a in got}
            return {key(a['labels']):
                    sorted(fp_name.get(fp, fp) for fp in a['status']['inhibitedBy']) for a in got}

        def key(labels):
            # The breakers differ by shape only.
            return (labels['alertname'], labels.get('instance'), labels.get('target'),
                    labels.get('shape'))
        # The API asks the inhibitor per request, but the inhibitor learns the
        # source alerts from the alert store asynchronously: wait until every
        # alert that should be inhibited is. Then every source is known, and
        # the one read below decides the cases that must not be inhibited.
        deadline = time.monotonic() + 15
        while True:
            by = state()
            if all(by.get(key(l)) == [w] for l, w in ALERTS if w) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        by = state()
        failures = 0
        for labels, want in ALERTS:
            if key(labels) not in by:
                print(f'{labels}: not in Alertmanager')
                failures += 1
            elif by[key(labels)] != ([want] if want else []):
                print(f'{labels}: inhibited by {by[key(labels)]}, want {[want] if want else []}')
                failures += 1
        return failures
    finally:
        am.terminate()
        try:
            am.wait(timeout=10)
        except subprocess.TimeoutExpired:
            am.kill()
            am.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if ALERTMANAGER:
    failed += check_inhibition()
else:
    print('prometheus-alertmanager not installed (scripts/setup-deps --test): inhibition not checked')
print('ok' if not failed else f'{failed} case(s) failed')
sys.exit(1 if failed else 0)
