// The rule bundle as the stack test loads it: the shipped mixin with its
// selector pointed at the test's scrape job and every `for:` and look-back
// shortened so a fault fires and resolves within seconds. Thresholds are the
// shipped defaults. Rendered by tests/stack/stack_test.py with
//   jsonnet --ext-str job=JOB -J SOURCE_DIR tests/stack/stack_rules.jsonnet
local mixin = (import 'rules/mixin/mixin.libsonnet') + {
  _config+:: {
    selector: 'job="%s"' % std.extVar('job'),
    causeFor: '4s',
    collectorFailingFor: '10s',
    exporterDownFor: '10s',
    probeFailingFor: '30s',
    probeNeverRanFor: '60s',
    probeStaleSeconds: 120,
    // Drift alerts: "what it was" reaches over the whole test, and a change
    // stays shown long enough to be seen, short enough to resolve.
    driftLookback: '15m',
    changeShownFor: '15s',
  },
};
{ groups: mixin.prometheusRules.groups + mixin.prometheusAlerts.groups }
