#!/usr/bin/env python3
"""Every `for:` of the rule bundle comes from the mixin's `_config`, and the transfer floor is
relative to the path (issue 41 item 1).

- Renders the mixin with every `_config` key ending in `For` set to one odd duration and fails
  on an alert whose `for:` is not that duration (a literal in an alert file, which an operator
  or a test could not shorten through `_config`). A self-check renders it once more with a
  literal planted in one alert and requires the check to name it.
- Fails when the shipped `_config` (rules/thresholds.json) has an absolute transfer floor above
  10 MB/s, or no relative one.

Exits 77 without jsonnet.
"""
import json
import os
import shutil
import subprocess
import sys

SOURCE_DIR = os.environ.get('FABRIC_SOURCE_DIR') or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ODD = '4242s'
RENDER = '''
local mixin = (import 'rules/mixin/mixin.libsonnet') + %s;
local all = mixin + { _config+:: {
  [k]: '%s' for k in std.objectFields(mixin._config) if std.endsWith(k, 'For')
} };
[{ alert: r.alert, 'for': r['for'] }
 for g in all.prometheusAlerts.groups for r in g.rules if std.objectHas(r, 'alert')]
'''


def literal_fors(patch='{}'):
    """The alerts whose `for:` did not follow the `...For` keys of `_config`."""
    out = subprocess.run(['jsonnet', '-e', RENDER % (patch, ODD)], cwd=SOURCE_DIR,
                         capture_output=True, text=True, check=True, timeout=120).stdout
    alerts = json.loads(out)
    assert len(alerts) > 30, alerts
    return sorted(a['alert'] for a in alerts if a['for'] != ODD)


def main():
    if not shutil.which('jsonnet'):
        print('jsonnet not installed: skipped')
        return 77
    errors = [f'{name}: its for: is a literal, not a _config key ending in For'
              for name in literal_fors()]
    # Self-check: an alert given a literal `for:` after the mixin is built is caught.
    planted = ('{ prometheusAlerts+:: { groups: [g { rules: [r + (if std.objectHas(r, "alert") '
               '&& r.alert == "FabricTransfersFarBelowLadder" then { "for": "30m" } else {}) '
               'for r in g.rules] } for g in super.groups] } }')
    if literal_fors(planted) != ['FabricTransfersFarBelowLadder']:
        errors.append('self-check: a planted literal for: was not caught')
    with open(os.path.join(SOURCE_DIR, 'rules', 'thresholds.json')) as f:
        config = json.load(f)
    if config['transferMinBytesPerSecond'] > 10e6:
        errors.append(f'transferMinBytesPerSecond is {config["transferMinBytesPerSecond"]}: no '
                      'absolute transfer floor above 10 MB/s by default')
    if not 0 < config['transferMinPathRatio'] < config['transferCriticalRatio']:
        errors.append('transferMinPathRatio must be a fraction of the path below the page ratio')
    for e in errors:
        print(e)
    print(f'alert_for_config: {len(errors)} problem(s)')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
