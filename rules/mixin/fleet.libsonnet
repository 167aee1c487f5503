// Fleet scale (issue 22): the topology of the fleet config (rack, plane, role
// on fabric_fleet_node_info and fabric_fleet_peer_info) as joins, per-rack
// aggregates whose cost is bounded by the racks rather than the nodes (the
// fleet dashboard reads these, not the per-pair series), and the fleet circuit
// breaker. Both groups come after the alert groups in the rule file: the
// aggregates read the ladder's records, the breaker reads the ALERTS of every
// other group (rule tests list the groups in file order).
{
  _config+:: {
    // The circuit breaker: more than this share of the fleet's nodes (exporters
    // Prometheus scrapes) showing one shape at once, and at least this many, is
    // one shared cause, not as many separate faults.
    fleetShapeShare: 0.3,
    fleetShapeMinNodes: 5,
    // The counted alerts have waited their own `for:`; the breaker fires with them.
    fleetShapeFor: '0m',
  },

  local c = $._config,
  local topology = 'instance:fabric_fleet_topology:info',
  local peerTopology = 'instance_target:fabric_fleet_peer_topology:info',
  local pathRatio = 'instance_target_direction:fabric_path_line_ratio:min',
  local rackRatio = 'instance_target_rack_direction:fabric_path_line_ratio:min',
  local racked = '%s{rack!=""}' % topology,
  local lineRate = 'instance:fabric_line_rate_bytes_per_second:max',
  // Per-node alerts carrying a shape (shapes.libsonnet), the breaker left out, and
  // results flagged contended left out too: a shared path is a property of the moment on
  // a loaded fleet, not a fault the nodes share. Instrument alerts count per kind
  // (instrument_alert).
  local shaped = 'ALERTS{alertname=~"Fabric.*", alertname!="FabricFleetWideShape", alertstate="firing", shape!="", verdict!="contended"}',
  local nodesPerShape = 'count by (shape, instrument_alert) (count by (shape, instrument_alert, instance) (%s))' % shaped,
  local nodes = 'count(up{%(selector)s})' % c,
  local titles = $._shapeTitles,
  local cause = '{{ if ' + std.join('{{ else if ', [
    'eq $labels.shape "%s" }}%s' % [k, titles[k]]
    for k in std.objectFields(titles)
  ]) + '{{ else }}shape {{ $labels.shape }}{{ end }}',

  prometheusAlerts+:: {
    groups+: [
      {
        name: 'fabric-ladder.fleet',
        rules: [
          {
            // Each node's place in the fleet config.
            record: topology,
            expr: |||
              max by (instance, node, rack, plane, role) (fabric_fleet_node_info{%(selector)s})
            ||| % c,
          },
          {
            // Each peer's rack and plane as seen by the node probing it.
            record: peerTopology,
            expr: |||
              max by (instance, target, target_rack, target_plane) (
                label_replace(
                  label_replace(
                    label_replace(fabric_fleet_peer_info{%(selector)s, rack!=""}, "target", "$1", "peer", "(.+)"),
                    "target_rack", "$1", "rack", "(.+)"
                  ),
                  "target_plane", "$1", "plane", "(.*)"
                )
              )
            ||| % c,
          },
          {
            // Each network path's binding ceiling over the sender's line rate.
            record: pathRatio,
            expr: |||
              min by (instance, target, direction) (
                instance_target_direction:fabric_ladder_binding_bytes_per_second:min{direction=~"send|receive|both"}
              )
              / on (instance) group_left () %s
            ||| % lineRate,
          },
          {
            // Per node and target rack, the worst path: from the per-pair
            // results, and from the per-node summaries per target rack for the
            // peers without per-pair detail (fabric_probe_rack_*).
            record: rackRatio,
            expr: |||
              min by (instance, target_rack, direction) (
                label_replace(
                  %(pathRatio)s * on (instance, target) group_left (target_rack) %(peerTopology)s,
                  "source", "pairs", "", ""
                )
                or
                label_replace(
                  min by (instance, target_rack, direction) (
                    fabric_probe_rack_throughput_bytes_per_second{%(selector)s, stat="min", probe=~"rdma|tcp_multi", target_rack!=""}
                  )
                  / on (instance) group_left () %(lineRate)s,
                  "source", "summaries", "", ""
                )
              )
            ||| % (c { pathRatio: pathRatio, peerTopology: peerTopology, lineRate: lineRate }),
          },
          {
            // The rack x rack matrix: the worst path from any node of `rack`
            // into `target_rack`, and the median over those nodes of their worst.
            record: 'rack_target_rack_direction:fabric_path_line_ratio:min',
            expr: |||
              min by (rack, target_rack, direction) (
                %s * on (instance) group_left (rack) %s
              )
            ||| % [rackRatio, racked],
          },
          {
            record: 'rack_target_rack_direction:fabric_path_line_ratio:median',
            expr: |||
              quantile by (rack, target_rack, direction) (0.5,
                %s * on (instance) group_left (rack) %s
              )
            ||| % [rackRatio, racked],
          },
          {
            // Per-rack ladders: each layer's best per node, over line rate,
            // as the rack's median node and its worst node.
            record: 'rack:fabric_ladder_line_ratio:median',
            expr: |||
              quantile by (rack, layer) (0.5,
                instance:fabric_ladder_line_ratio:max * on (instance) group_left (rack) %s
              )
            ||| % racked,
          },
          {
            record: 'rack:fabric_ladder_line_ratio:min',
            expr: |||
              min by (rack, layer) (
                instance:fabric_ladder_line_ratio:max * on (instance) group_left (rack) %s
              )
            ||| % racked,
          },
        ],
      },
      {
        name: 'fabric-ladder.breaker',
        rules: [{
          // The fleet circuit breaker: one alert for a shape that many nodes
          // show at once. Counts nodes (instances) with a firing per-node alert
          // of the shape; Alertmanager inhibits those alerts under this one.
          // It fires one evaluation after them, within group_wait.
          alert: 'FabricFleetWideShape',
          expr: |||
            %(perShape)s
            > %(fleetShapeShare)g * scalar(%(nodes)s)
            and %(perShape)s >= %(fleetShapeMinNodes)s
          ||| % (c { perShape: nodesPerShape, nodes: nodes }),
          'for': c.fleetShapeFor,
          labels: { severity: 'warning' },
          annotations: {
            summary: 'Many nodes show the same bottleneck shape at once: one shared cause.',
            description: '{{ $value }} of %s nodes show shape {{ $labels.shape }} at once: %s. So many nodes with one shape have one cause in common (a setting, image or kernel rolled out fleet-wide, a shared switch, storage or service, or the instrument itself), not {{ $value }} separate faults. The per-node alerts (%s) are held back under this one (deploy/examples/alertmanager.yml inhibits them by shape): fix the shared cause first.' % [
              '{{ with query `%s` }}{{ . | first | value | humanize }}{{ end }}' % nodes,
              cause,
              '{{ range $i, $a := printf `count by (alertname) (%s)` $labels.shape $labels.instrument_alert | query }}{{ if $i }}, {{ end }}{{ $a.Labels.alertname }}{{ end }}' % std.strReplace(shaped, 'shape!=""', 'shape=%q, instrument_alert=%q'),
            ],
            runbook_url: '%s#%s' % [c.runbookBase, 'fabricfleetwideshape'],
          },
        }],
      },
    ],
  },
}
