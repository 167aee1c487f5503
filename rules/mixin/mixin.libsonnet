// fabric-ladder monitoring mixin: import this, override _config, and render
// prometheusRules (recording rules) and prometheusAlerts (alerting rules).
(import 'config.libsonnet') +
(import 'ladder.libsonnet') +
(import 'alerts.libsonnet') +
(import 'drift.libsonnet')
