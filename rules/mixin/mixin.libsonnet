// fabric-ladder monitoring mixin: import this, override _config, and render
// prometheusRules (recording rules) and prometheusAlerts (alerting rules).
// shapes.libsonnet comes last: it labels every alert of the others with its
// bottleneck shape.
(import 'config.libsonnet') +
(import 'ladder.libsonnet') +
(import 'alerts.libsonnet') +
(import 'drift.libsonnet') +
(import 'fleet.libsonnet') +
(import 'fleet_agreement.libsonnet') +
(import 'link_health.libsonnet') +
(import 'path_mesh.libsonnet') +
(import 'peers.libsonnet') +
(import 'storage_transfers.libsonnet') +
(import 'collectives.libsonnet') +
(import 'rdma_transfers.libsonnet') +
(import 'shapes.libsonnet')
