#!/usr/bin/env python3
"""The Alertmanager example is valid and routes fabric-ladder alerts as its
comments say (amtool, offline). Python stdlib only."""
import os
import subprocess
import sys

SRC = os.environ.get('FABRIC_SOURCE_DIR', os.path.join(os.path.dirname(__file__), '..', '..'))
CONFIG = os.path.join(SRC, 'deploy', 'examples', 'alertmanager.yml')

subprocess.run(['amtool', 'check-config', CONFIG], check=True, stdout=subprocess.DEVNULL)
cases = [
    (['alertname=FabricTransfersFarBelowLadder', 'severity=critical'], 'fabric-pager'),
    (['alertname=FabricLayerRegression', 'severity=warning'], 'fabric-tickets'),
    (['alertname=FabricSingleStreamCeiling', 'severity=info'], 'fabric-dashboard'),
]
failed = 0
for labels, want in cases:
    got = subprocess.run(['amtool', 'config', 'routes', 'test', '--config.file=' + CONFIG] + labels,
                         capture_output=True, text=True).stdout.strip()
    if got != want:
        print(f'{labels}: routed to {got!r}, want {want!r}')
        failed += 1
print('ok' if not failed else f'{failed} routing case(s) failed')
sys.exit(1 if failed else 0)
