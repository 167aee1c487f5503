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
