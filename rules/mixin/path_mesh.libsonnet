// The latency and loss mesh between bandwidth runs (issue 22 item 4): each
// exporter times a TCP connect to a bounded set of fleet peers every few
// seconds (fabric_path_rtt_seconds, fabric_path_probes_total,
// fabric_path_lost_total {target}). A path that keeps losing probes, or
// whose round trip jumps above its own recent baseline, shows within
// minutes instead of at the pair's next bandwidth round.
{
  _config+:: {
    // Lost probes over the 5-minute window that make a lossy path: one
    // lost SYN in 60 probes (1.7%) is noise, three or more a path that drops.
    pathLossRatio: 0.05,
    // Probes the window must hold (an exporter that just started, or a mesh
    // interval raised to minutes, says too little).
    pathLossMinProbes: 20,
    pathLossFor: '3m',
    // The round trip's 5-minute median against the path's own median over
    // the hour before (ending pathRttBaselineOffset ago, so the jump is not
    // in its own baseline): a jump is pathRttJumpFactor times the baseline
    // and at least pathRttJumpMinSeconds more (microsecond paths double on a
    // busy host's scheduling alone).
    pathRttJumpFactor: 3,
    pathRttJumpMinSeconds: 100e-6,
    pathRttBaselineWindow: '1h',
    pathRttBaselineOffset: '15m',
    pathRttJumpFor: '5m',
    // One cause, one alert (issue 22 "no alert floods"): a node that most of
    // its probers lose (at least pathSharedMinPaths of them) is the far end's
    // fault, FabricPathTargetLossy; a node that loses most of its own targets
    // (the same share and count, targets that most others lose left out) is
    // its own end's, FabricPathSourceLossy. Alertmanager holds back the
    // per-path alerts under them (deploy/examples/alertmanager.yml). Three
    // paths at least: two lossy probers of 16 are two paths, not a node.
    pathSharedShare: 0.5,
    pathSharedMinPaths: 3,
    // Shorter than pathLossFor: the per-node alert reaches Alertmanager no
    // later than the per-path alerts it holds back.
    pathSharedFor: '2m',
    // How long the rules remember a node's exporter (instance) after its
    // series are gone, re-recorded every evaluation while a fleet peer still
    // lists the node: a dead node's FabricPathTargetLossy names its instance,
    // so its FabricExporterDown is held back under it.
    pathNodeMemory: '10m',
  },

  local c = $._config,
  local alert(name, severity, expr, summary, description, for_) = {
    alert: name,
    expr: expr,
    'for': for_,
    labels: { severity: severity },
    annotations: {
      summary: summary,
      description: description,
      runbook_url: '%s#%s' % [c.runbookBase, std.asciiLower(name)],
    },
  },

  // Targets most of whose judged probers lose them (the per-target alert's
  // condition, also what the per-source share leaves out).
  local sharedTarget = '(target:fabric_path_lossy_probers:ratio >= %(pathSharedShare)g and on (target) target:fabric_path_lossy_probers:count >= %(pathSharedMinPaths)d)' % c,
  local nodeInstance = 'target_instance:fabric_fleet_node:info',
  local ownInfo = 'label_replace(fabric_fleet_node_info{%(selector)s}, "target", "$1", "node", "(.+)")' % c,
  local sharedSource = |||
    instance:fabric_path_lossy_targets:ratio >= %(pathSharedShare)g
    and on (instance) instance:fabric_path_lossy_targets:count >= %(pathSharedMinPaths)d
  ||| % c,

  prometheusRules+:: {
    groups+: [{
      name: 'fabric-ladder.path_mesh',
      rules: [
        {
          // Share of the mesh's probes to each peer lost in the last 5 minutes.
          record: 'instance_target:fabric_path_lost:ratio_rate5m',
          expr: |||
            sum by (instance, target) (increase(fabric_path_lost_total{%(selector)s}[5m]))
            / sum by (instance, target) (increase(fabric_path_probes_total{%(selector)s}[5m]))
          ||| % c,
        },
        {
          record: 'instance_target:fabric_path_probes:increase5m',
          expr: |||
            sum by (instance, target) (increase(fabric_path_probes_total{%(selector)s}[5m]))
          ||| % c,
        },
        {
          // Each judged path (enough probes in the window): 1 lossy, 0 not.
          record: 'instance_target:fabric_path_lossy:bool',
          expr: |||
            (instance_target:fabric_path_lost:ratio_rate5m > bool %(pathLossRatio)g)
            and on (instance, target) instance_target:fabric_path_probes:increase5m >= %(pathLossMinProbes)s
          ||| % c,
        },
        {
          // Per target: the share and number of its probers that lose it,
          // and how many probe it (series bounded by the fleet's nodes).
          record: 'target:fabric_path_lossy_probers:ratio',
          expr: 'avg by (target) (instance_target:fabric_path_lossy:bool)',
        },
        {
          record: 'target:fabric_path_lossy_probers:count',
          expr: 'sum by (target) (instance_target:fabric_path_lossy:bool)',
        },
        {
          record: 'target:fabric_path_probers:count',
          expr: 'count by (target) (instance_target:fabric_path_lossy:bool)',
        },
        {
          // Per source: the share and number of its targets it loses, the
          // targets most of their probers lose left out (a dead peer is the
          // peer's fault, not every source's).
          record: 'instance:fabric_path_lossy_targets:ratio',
          expr: |||
            avg by (instance) (instance_target:fabric_path_lossy:bool unless on (target) %(sharedTarget)s)
          ||| % (c { sharedTarget: sharedTarget }),
        },
        {
          record: 'instance:fabric_path_lossy_targets:count',
          expr: |||
            sum by (instance) (instance_target:fabric_path_lossy:bool unless on (target) %(sharedTarget)s)
          ||| % (c { sharedTarget: sharedTarget }),
        },
        {
          // Each fleet node's exporter (instance) under the node's name as
          // the mesh's `target` label: from its own fabric_fleet_node_info,
          // else (its exporter gone) the last value of this record, kept
          // while some node still lists it as a fleet peer.
          record: nodeInstance,
          expr: |||
            max by (target, instance) (%(ownInfo)s)
            or (
              (last_over_time(%(nodeInstance)s[%(pathNodeMemory)s]) unless on (target) %(ownInfo)s)
              and on (target) label_replace(fabric_fleet_peer_info{%(selector)s}, "target", "$1", "peer", "(.+)")
            )
          ||| % (c { nodeInstance: nodeInstance, ownInfo: ownInfo }),
        },
        {
          // Median round trip of the answered probes, now and the baseline.
          record: 'instance_target:fabric_path_rtt_seconds:median5m',
          expr: |||
            histogram_quantile(0.5, sum by (instance, target, le) (rate(fabric_path_rtt_seconds_bucket{%(selector)s}[5m])))
          ||| % c,
        },
        {
          record: 'instance_target:fabric_path_rtt_seconds:median_baseline',
          expr: |||
            histogram_quantile(0.5, sum by (instance, target, le) (
              rate(fabric_path_rtt_seconds_bucket{%(selector)s}[%(pathRttBaselineWindow)s] offset %(pathRttBaselineOffset)s)))
          ||| % c,
        },
      ],
    }],
  },

  prometheusAlerts+:: {
    groups+: [{
      name: 'fabric-ladder.path_mesh_alerts',
      rules: [
        alert('FabricPathLoss', 'warning', |||
          instance_target:fabric_path_lost:ratio_rate5m > %(pathLossRatio)s
          and on (instance, target) instance_target:fabric_path_probes:increase5m >= %(pathLossMinProbes)s
        ||| % c, 'The latency mesh loses probes on a path.',
              '{{ $value | humanizePercentage }} of the latency probes from {{ $labels.instance }} to {{ $labels.target }} went unanswered in the last 5 minutes (more than %g%%): the path drops packets or is down.' % (100 * c.pathLossRatio), c.pathLossFor),
        alert('FabricPathTargetLossy', 'warning', |||
          %(shared)s * on (target) group_right () %(nodeInstance)s
          or
          %(shared)s unless on (target) %(nodeInstance)s
        ||| % { shared: sharedTarget, nodeInstance: nodeInstance },
              'Most nodes that probe one node lose their probes to it: the far end is at fault.',
              '{{ $value | humanizePercentage }} of the nodes probing {{ $labels.target }} (%s of %s) lose more than %g%% of their latency probes to it: the fault is at {{ $labels.target }} or its link (a node down or cut off when its exporter is down too), not on each path. The per-path FabricPathLoss and FabricPathRttJump alerts to it, and its FabricExporterDown, are held back under this one.' % [
                '{{ with printf `target:fabric_path_lossy_probers:count{target=%q}` $labels.target | query }}{{ . | first | value | humanize }}{{ end }}',
                '{{ with printf `target:fabric_path_probers:count{target=%q}` $labels.target | query }}{{ . | first | value | humanize }}{{ end }}',
                100 * c.pathLossRatio,
              ], c.pathSharedFor),
        alert('FabricPathSourceLossy', 'warning', sharedSource,
              'A node loses its probes to most of its mesh peers: its own end is at fault.',
              '{{ $labels.instance }} loses more than %g%% of its latency probes to {{ $value | humanizePercentage }} of its mesh peers (%s of them, peers that most nodes lose left out), which their other probers reach: the fault is at {{ $labels.instance }} itself (its NIC, link or uplink, a firewall), not on each path. Its per-path FabricPathLoss and FabricPathRttJump alerts, and FabricPathTargetLossy for it, are held back under this one.' % [
                100 * c.pathLossRatio,
                '{{ with printf `instance:fabric_path_lossy_targets:count{instance=%q}` $labels.instance | query }}{{ . | first | value | humanize }}{{ end }}',
              ], c.pathSharedFor),
        alert('FabricPathRttJump', 'warning', |||
          instance_target:fabric_path_rtt_seconds:median5m
            > %(pathRttJumpFactor)s * instance_target:fabric_path_rtt_seconds:median_baseline
          and
          instance_target:fabric_path_rtt_seconds:median5m
            - instance_target:fabric_path_rtt_seconds:median_baseline > %(pathRttJumpMinSeconds)s
        ||| % c, 'A path round trip jumped above its own recent baseline.',
              'The median round trip from {{ $labels.instance }} to {{ $labels.target }} is {{ $value | humanizeDuration }}, more than %g times its median over the %s before (queueing on the path, a congested or rerouted link).' % [c.pathRttJumpFactor, c.pathRttBaselineWindow], c.pathRttJumpFor),
      ],
    }],
  },
}
