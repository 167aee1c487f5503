// The rule bundle as the stack test loads it: the shipped mixin with its
// selector pointed at the test's scrape job and every `for:` and look-back
// shortened so a fault fires and resolves within seconds. Thresholds are the
// shipped defaults. Rendered by tests/stack/stack_test.py with
//   jsonnet --ext-str job=JOB -J SOURCE_DIR tests/stack/stack_rules.jsonnet
local mixin = (import 'rules/mixin/mixin.libsonnet') + {
  _config+:: {
    selector: 'job="%s"' % std.extVar('job'),
    // Longer than one calibrated probe session (2 directions x (1.3 s + 6 x
    // 0.2 s candidates)), as the shipped 15m is longer than the shipped one:
    // a path check that fails only while a probe fills the shaped line's
    // queue (its echo dropped) must not last a whole `for:`.
    causeFor: '8s',
    collectorFailingFor: '10s',
    exporterDownFor: '10s',
    probeFailingFor: '30s',
    probeNeverRanFor: '60s',
    probeStaleSeconds: 120,
    // Three of the test's 7-second rounds, as the shipped 30m is three 10-minute ones.
    txRxWindow: '21s',
    // Drift alerts: "what it was" reaches over the whole test, and a change
    // stays shown long enough to be seen, short enough to resolve.
    driftLookback: '15m',
    changeShownFor: '15s',
  },
};
{ groups: mixin.prometheusRules.groups + mixin.prometheusAlerts.groups }
