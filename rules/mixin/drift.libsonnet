// Regressions and drift: each ladder layer against what it used to do (its best 7-day
// baseline of the last 30 days), and configuration that silently changes or reverts.
// Baselines and regressions judge uncontended results, cpu_bound runs included: a node that
// became CPU-bound is a node whose ladder regressed (the notification says so), while a
// contended run measured a share of the path and stays out.
local clean = 'instance_target_direction:fabric_probe_uncontended_throughput_bytes_per_second:max';
local baseline = 'instance_target_direction:fabric_probe_throughput_bytes_per_second:baseline';
local longBaseline = 'instance_target_direction:fabric_probe_throughput_bytes_per_second:long_baseline';
local runs = 'instance_target_direction:fabric_probe_last_run_timestamp_seconds:max';
local pairKeys = 'instance, target, direction, probe';
local lq(keys) = std.join(',', [k + '=%q' for k in keys]);
local largs(keys) = std.join(' ', ['$labels.' + k for k in keys]);
local qe(format, keys, fmt='humanize') =
  '{{ with printf `%s` %s | query }}{{ . | first | value | %s }}{{ else }}unknown{{ end }}'
  % [format, largs(keys), fmt];
local pk = ['instance', 'target', 'direction', 'probe'];
// The self-check verdicts of the latest run, said in the notification: a regression the probe
// flagged cpu_bound is what the node can do now (slower cores, a frequency governor, a busy
// neighbour), not a path fault.
local verdicts = '{{ with printf `fabric_probe_verdict{instance=%q,target=%q,direction=%q,probe=%q,verdict="cpu_bound"} == 1` $labels.instance $labels.target $labels.direction $labels.probe | query }} The latest run flagged itself cpu_bound: the node\'s CPU, not the path, sets this layer now.{{ end }}';
local nodeVerdicts = '{{ with printf `count(fabric_probe_verdict{instance=%q,probe=%q,direction="send",verdict="cpu_bound"} == 1)` $labels.instance $labels.probe | query }} The latest run of {{ . | first | value }} of those paths flagged itself cpu_bound: the node\'s CPU now sets its transmit rate.{{ end }}';
// The data a result measures, in words: a receive result is data from the target to the
// instance; a storage result (no direction) is the instance's directory.
local flow = '{{ if eq $labels.direction "receive" }}from {{ $labels.target }} to {{ $labels.instance }}{{ else if eq $labels.direction "send" }}from {{ $labels.instance }} to {{ $labels.target }}{{ else }}of {{ $labels.target }} on {{ $labels.instance }}{{ end }}';

{
  local c = $._config,
  local window = '%ds' % (c.regressionRuns * c.probeIntervalSeconds),
  local cfg = c { window: window, clean: clean, baseline: baseline, longBaseline: longBaseline, runs: runs, keys: pairKeys },
  local alert(name, severity, expr, summary, description, for_=c.driftFor) = {
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
      name: 'fabric-ladder.baselines',
      rules: [
        {
          record: runs,
          expr: |||
            max by (%(keys)s) (fabric_probe_last_run_timestamp_seconds{%(selector)s} > 0)
          ||| % cfg,
        },
        {
          // A high quantile of the window: one bad run does not move it, one
          // good run does not set it.
          record: baseline,
          expr: |||
            quantile_over_time(%(baselineQuantile)s, %(clean)s[%(baselineWindow)s])
          ||| % cfg,
        },
        {
          record: 'instance_target_direction:fabric_transfers_bytes_per_second:baseline',
          expr: |||
            quantile_over_time(%(baselineQuantile)s, instance_target_direction:fabric_transfers_bytes_per_second:sum[%(baselineWindow)s])
          ||| % cfg,
        },
        {
          // What the path used to do: the best 7-day baseline of the last 30 days (never
          // below today's). A 7-day baseline absorbs a decline within a week; this one
          // keeps "this node used to do 194 Gb/s" for a month.
          record: longBaseline,
          expr: |||
            max_over_time(%(baseline)s[%(longBaselineWindow)s:%(longBaselineStep)s]) >= %(baseline)s
            or %(baseline)s
          ||| % cfg,
        },
        {
          // Best clean result of the last regressionRuns runs over the long baseline.
          record: 'instance_target_direction:fabric_probe_baseline_ratio:max',
          expr: |||
            max_over_time(%(clean)s[%(window)s]) / %(longBaseline)s
          ||| % cfg,
        },
        {
          // The four socket-buffer maxima as one series per sysctl, for drift.
          record: 'instance_sysctl:fabric_socket_buffer_max_bytes:max',
          expr: |||
            label_replace(max by (instance) (fabric_sockbuf_core_rmem_max_bytes{%(selector)s}), "sysctl", "net.core.rmem_max", "", "")
            or label_replace(max by (instance) (fabric_sockbuf_core_wmem_max_bytes{%(selector)s}), "sysctl", "net.core.wmem_max", "", "")
            or label_replace(max by (instance) (fabric_sockbuf_tcp_rmem_bytes{%(selector)s, bound="max"}), "sysctl", "net.ipv4.tcp_rmem", "", "")
            or label_replace(max by (instance) (fabric_sockbuf_tcp_wmem_bytes{%(selector)s, bound="max"}), "sysctl", "net.ipv4.tcp_wmem", "", "")
          ||| % cfg,
        },
      ],
    }],
  },

  prometheusAlerts+:: {
    groups+: [
      {
        name: 'fabric-ladder.regressions',
        rules: [
          alert('FabricLayerRegression', 'warning', |||
            instance_target_direction:fabric_probe_baseline_ratio:max < 1 - %(regressionFraction)s
            and on (%(keys)s) changes(%(runs)s[%(window)s]) >= %(regressionRuns)s - 1
          ||| % cfg, 'A ladder layer of a path fell below its own baseline.',
                'The {{ $labels.probe }} layer %s ({{ $labels.instance }}\'s {{ with $labels.direction }}{{ . }}{{ else }}storage{{ end }} result) reached at best %sB/s in its last %d runs, {{ $value | humanizePercentage }} of the %sB/s it used to do (its best %s baseline in %s; the %s baseline now is %sB/s); the last run within %s of that was at %s, so the drop started after it.%s' % [
                  flow,
                  qe('max_over_time(%s{instance=%%q,target=%%q,direction=%%q,probe=%%q}[%s])' % [clean, window], pk),
                  c.regressionRuns,
                  qe('%s{instance=%%q,target=%%q,direction=%%q,probe=%%q}' % longBaseline, pk),
                  c.baselineWindow,
                  c.longBaselineWindow,
                  c.baselineWindow,
                  qe('%s{instance=%%q,target=%%q,direction=%%q,probe=%%q}' % baseline, pk),
                  '%g%%' % (100 * c.regressionFraction),
                  qe('max_over_time((%s{instance=%%q,target=%%q,direction=%%q,probe=%%q} and on () (%s{instance=%%q,target=%%q,direction=%%q,probe=%%q} >= %s * %s{instance=%%q,target=%%q,direction=%%q,probe=%%q}))[%s:%ds])' % [runs, clean, std.toString(1 - c.regressionFraction), longBaseline, c.longBaselineWindow, c.probeIntervalSeconds / 4], pk + pk + pk, 'humanizeTimestamp'),
                  verdicts,
                ]),
          alert('FabricNodeTransmitRegression', 'warning', |||
            count by (instance, probe) (
              instance_target_direction:fabric_probe_baseline_ratio:max{direction="send"} < 1 - %(regressionFraction)s
              and on (%(keys)s) changes(%(runs)s[%(window)s]) >= %(regressionRuns)s - 1
            )
            == count by (instance, probe) (instance_target_direction:fabric_probe_baseline_ratio:max{direction="send"})
            and count by (instance, probe) (instance_target_direction:fabric_probe_baseline_ratio:max{direction="send"}) >= 2
          ||| % cfg, 'A node transmits below its baseline on every path.',
                '{{ $labels.instance }} sends more than %s below what it used to do (its best %s baseline in %s) on all {{ $value }} of its {{ $labels.probe }} paths: the node, not one path, regressed (Alertmanager inhibits the per-path FabricLayerRegression alerts).%s' % ['%g%%' % (100 * c.regressionFraction), c.baselineWindow, c.longBaselineWindow, nodeVerdicts]),
        ],
      },
      {
        name: 'fabric-ladder.drift',
        rules: [
          alert('FabricPciePathNarrowerThanBefore', 'warning', |||
            instance:fabric_pcie_ceiling_bytes_per_second:min
            < on (instance) max_over_time(instance:fabric_pcie_ceiling_bytes_per_second:min[%(driftLookback)s])
          ||| % cfg, 'The fabric NIC PCIe path trained narrower or slower than it was.',
                'The PCIe path of {{ $labels.instance }}\'s fabric NIC now carries {{ $value | humanize }}B/s; in the last %s it carried %sB/s (a link lost lanes or speed: re-seat, or check the last reboot).' % [c.driftLookback, qe('max_over_time(instance:fabric_pcie_ceiling_bytes_per_second:min{instance=%%q}[%s])' % c.driftLookback, ['instance'])]),
          alert('FabricNicSpeedChanged', 'warning', |||
            changes(instance:fabric_line_rate_bytes_per_second:max[%(changeShownFor)s]) > 0
          ||| % cfg, 'The fabric NIC negotiated a different speed.',
                'The fabric NIC of {{ $labels.instance }} changed speed {{ $value }} time(s) in the last %s; it now runs at %sB/s.' % [c.changeShownFor, qe('instance:fabric_line_rate_bytes_per_second:max{instance=%q}', ['instance'])]),
          alert('FabricNicMtuChanged', 'warning', |||
            changes(instance:fabric_interface_mtu_bytes:max[%(changeShownFor)s]) > 0
          ||| % cfg, 'The fabric interface MTU changed.',
                'The fabric interface MTU of {{ $labels.instance }} changed {{ $value }} time(s) in the last %s; it is now %s.' % [c.changeShownFor, qe('instance:fabric_interface_mtu_bytes:max{instance=%q}', ['instance'], 'printf "%.0f"')]),
          // Its own history only: a node that was never tuned did not revert (the buffer against
          // the bandwidth-delay product is FabricSocketBufferBelowBdp).
          alert('FabricSocketBufferReverted', 'warning', |||
            instance_sysctl:fabric_socket_buffer_max_bytes:max
            < on (instance, sysctl) max_over_time(instance_sysctl:fabric_socket_buffer_max_bytes:max[%(driftLookback)s])
          ||| % cfg, 'A socket buffer sysctl is below its previous value.',
                '{{ $labels.sysctl }} on {{ $labels.instance }} is {{ $value | humanize1024 }}B; it was %sB in the last %s (a reboot or package update reverted the tuning?).' % [
                  qe('max_over_time(instance_sysctl:fabric_socket_buffer_max_bytes:max{instance=%%q,sysctl=%%q}[%s])' % c.driftLookback, ['instance', 'sysctl'], 'humanize1024'),
                  c.driftLookback,
                ]),
          alert('FabricRouteChangedDevice', 'warning', |||
            max by (instance, target) (fabric_probe_egress_matches_expected{%(selector)s, probe="path"}) == 0
            and on (instance, target)
              max by (instance, target) (max_over_time(fabric_probe_egress_matches_expected{%(selector)s, probe="path"}[%(driftLookback)s])) == 1
          ||| % cfg, 'The route to a peer moved off the fabric interface.',
                'The route from {{ $labels.instance }} to {{ $labels.target }} left through the fabric interface in the last %s and no longer does: a route was lost (interface restart, network reload, reboot).' % c.driftLookback),
          alert('FabricExporterConfigChanged', 'info', |||
            count by (instance) (max_over_time(fabric_exporter_config_info{%(selector)s}[%(changeShownFor)s])) > 1
          ||| % cfg, 'An exporter restarted with a different configuration.',
                '{{ $labels.instance }} ran with {{ $value }} different configurations in the last %s (fabric_exporter_config_info sha256): probe plans, thresholds or collectors may have changed.' % c.changeShownFor),
        ],
      },
    ],
  },
}
