// Collectives (issue 43): NCCL's bus bandwidth (the collective collector: NCCL Inspector's
// textfiles and nccl-tests' JSON) as the collective rung of each node's ladder, against the
// RDMA rung of the node's NICs. The recording rules join `fabric-ladder.layers` (the best
// inter-node bus bandwidth per collective) and `fabric-ladder.ladder` (the rung itself, as
// layer="collective" of instance:fabric_ladder_bytes_per_second:max, one more `or` of its
// expression, so the line ratio that follows sees it); the alert joins `fabric-ladder.storage`, so
// the rule tests' group order stays as it is.
{
  local c = $._config,
  local collective = 'instance_collective:fabric_collective_bus_bandwidth_bytes_per_second:max',
  local ladderRecord = 'instance:fabric_ladder_bytes_per_second:max',
  // The node's RDMA rung: the best uncontended RDMA result on any of its paths.
  local rdmaRung = 'max by (instance) (instance_target_direction:fabric_probe_uncontended_throughput_bytes_per_second:max{probe="rdma"})',
  local runbook(name) = '%s#%s' % [c.runbookBase, std.asciiLower(name)],

  local recording = [
    {
      // The best bus bandwidth per node and collective: what crossed nodes, at the judged
      // message sizes, measured within collectiveMaxAge.
      record: collective,
      expr: |||
        max by (instance, collective) (
          fabric_collective_bus_bandwidth_bytes_per_second{%(selector)s, scope="inter_node", message_size=~"%(collectiveJudgedSizes)s"}
          and
          fabric_collective_measurement_age_seconds{%(selector)s} < %(collectiveMaxAgeSeconds)s
        )
      ||| % c,
    },
  ],

  // The collective rung: the best collective of the node, one more layer of the node's ladder
  // record (a second rule recording the same series would be a duplicate to promtool).
  local rung = |||
    or label_replace(
      max by (instance) (%s),
      "layer", "collective", "", ""
    )
  ||| % collective,

  local alerts = [
    {
      alert: 'FabricCollectiveBelowRdma',
      expr: |||
        %(collective)s
        / on (instance) group_left () %(rung)s
        < %(collectiveRdmaRatio)s
      ||| % (c { collective: collective, rung: rdmaRung }),
      'for': c.collectiveFor,
      labels: { severity: 'warning' },
      annotations: {
        summary: 'NCCL collectives across nodes move far below the RDMA rung of the node.',
        description: '{{ $labels.collective }} across nodes reaches {{ $value | humanizePercentage }} of the %sB/s RDMA proved from {{ $labels.instance }} (bus bandwidth at the large message sizes): NCCL is not moving its bytes over RDMA as the probe did (socket transport, GPUDirect RDMA off, the wrong HCA or a rail missing), not the fabric.' % '{{ with printf `max(instance_target_direction:fabric_probe_uncontended_throughput_bytes_per_second:max{probe="rdma",instance=%q})` $labels.instance | query }}{{ . | first | value | humanize }}{{ else }}unknown{{ end }}',
        runbook_url: runbook('FabricCollectiveBelowRdma'),
      },
    },
  ],

  prometheusRules+:: {
    groups: [
      if g.name == 'fabric-ladder.layers' then g { rules+: recording }
      else if g.name == 'fabric-ladder.ladder' then g {
        rules: std.flattenArrays([
          if std.objectHas(r, 'record') && r.record == ladderRecord then [r { expr+: rung }] else [r]
          for r in super.rules
        ]),
      }
      else g
      for g in super.groups
    ],
  },
  prometheusAlerts+:: {
    groups: [
      if g.name == 'fabric-ladder.storage' then g { rules+: alerts } else g
      for g in super.groups
    ],
  },
}
