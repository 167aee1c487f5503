// The rule bundle as the real_apps test loads it: the shipped mixin with its
// selector pointed at the test's scrape job and only its `for:` durations
// shortened, so an alert fires within a case of seconds. Every threshold is
// the shipped default. Rendered by tests/real_apps/real_apps_test.py with
//   jsonnet --ext-str job=JOB -J SOURCE_DIR tests/real_apps/real_apps_rules.jsonnet
local mixin = (import 'rules/mixin/mixin.libsonnet') + {
  _config+:: {
    selector: 'job="%s"' % std.extVar('job'),
    // Longer than one calibrated probe session (2 directions x (1.3 s + 6 x
    // 0.2 s candidates)), as the shipped 15m is longer than the shipped one.
    causeFor: '8s',
    collectorFailingFor: '10s',
    exporterDownFor: '10s',
    probeFailingFor: '30s',
    probeNeverRanFor: '60s',
    transferPageFor: '8s',
    // Three of the test's 12-second rounds, as the shipped 30m is three 10-minute ones: one
    // send run beside a case's transfer (under the contended check's 10%) on a loaded host is
    // one run, not the node's transmit side.
    txRxWindow: '36s',
    // The window the transfer alerts judge rates and limiter shares over (5m
    // shipped): a case observes its program for OBSERVE_SECONDS.
    transferWindow: '15s',
  },
};
{ groups: mixin.prometheusRules.groups + mixin.prometheusAlerts.groups }
