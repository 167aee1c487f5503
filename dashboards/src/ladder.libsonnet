// Fabric ladder: every layer of the ladder as a fraction of line rate, per
// node and per node pair, the binding layer highlighted, the firing Fabric*
// alerts beside it, a fleet matrix, and what changed (issue 14); the RDMA ports' application
// traffic (the probe's own taken off) against the RDMA rung (issue 43).
local g = import '../lib/grafana.libsonnet';
local c = import 'common.libsonnet';

local sel = c.sel;
local rsel = c.rsel;
local psel = 'instance=~"$instance", target=~"$target"';
local nodeRatio = 'instance:fabric_ladder_line_ratio:max{%s}' % rsel;
local nodeBinding = 'instance:fabric_ladder_binding_bytes_per_second:min{%s}' % rsel;
local pairRatio = 'instance_target_direction:fabric_ladder_line_ratio:max{%s}' % psel;
local pairBindingName = 'instance_target_direction:fabric_ladder_binding_bytes_per_second:min';
local pairBinding = '%s{%s}' % [pairBindingName, psel];
local lineRate = 'instance:fabric_line_rate_bytes_per_second:max';
local driftAlerts = c.alertNames(['fabric-ladder.regressions', 'fabric-ladder.drift']);
local ratioThresholds = g.thresholds([[null, 'red'], [0.5, 'orange'], [0.8, 'green']]);

local targetVar = g.queryVariable(
  'target', 'Peer', 'label_values(instance_target_direction:fabric_ladder_bytes_per_second:max{instance=~"$instance"}, target)'
);

g.dashboard(
  'fabric-ladder-ladder',
  'Fabric ladder',
  'Every layer of the capacity ladder (line rate, PCIe, RDMA, N-stream TCP, 1-stream TCP, storage, real transfers, NCCL collectives) as a fraction of line rate, per node and per node pair, with the binding layer highlighted and the firing fabric-ladder alerts.',
  [
    g.row('Ladder per node'),
    g.barGauge(
      'Ladder per node (fraction of line rate)',
      'Best result each layer proved on any path from the node, divided by the fabric NIC line rate. The binding layer (lowest of line, PCIe, RDMA and N-stream TCP) is red. 1-stream TCP is a per-stream ceiling, and transfers and the collective rung (NCCL bus bandwidth across nodes) are usage, so none of them binds.',
      [
        g.target('%s unless on (instance, layer) %s' % [nodeRatio, nodeBinding], '{{instance}} {{layer}}', instant=true),
        g.target('%s and on (instance, layer) %s' % [nodeRatio, nodeBinding], '{{instance}} {{layer}} (binding)', instant=true),
      ],
      'percentunit', w=14, h=10,
    ) + g.minMax(0, 1) + ratioThresholds + g.highlight('B', 'red'),
    g.table(
      'Firing fabric-ladder alerts',
      'Fabric* alerts firing now for the selected nodes (ALERTS from the rule bundle); each names a bottleneck shape and links its runbook through the alert annotations.',
      [g.target('ALERTS{alertname=~"Fabric.*", alertstate="firing", %s}' % rsel, instant=true, table=true)],
      'short',
      [g.organize({ Time: null, Value: null, __name__: null, alertstate: null, job: null })],
      w=10, h=10,
    ),
    g.stat(
      'Binding layer per node',
      'The node\'s binding layer and its ceiling in bytes per second: what an ideal transfer out of this node can reach at most.',
      [g.target(nodeBinding, '{{instance}}: {{layer}}', instant=true)],
      'Bps', w=24, h=4,
    ),

    g.row('Ladder per node pair'),
    g.barGauge(
      'Ladder per path (fraction of line rate)',
      'Each layer of each path (node to peer, per direction) over the node\'s line rate; the binding layer of the path is red.',
      [
        g.target('%s unless on (instance, target, direction, layer) %s' % [pairRatio, pairBinding], '{{instance}} → {{target}} {{direction}} {{layer}}', instant=true),
        g.target('%s and on (instance, target, direction, layer) %s' % [pairRatio, pairBinding], '{{instance}} → {{target}} {{direction}} {{layer}} (binding)', instant=true),
      ],
      'percentunit', w=12, h=14,
    ) + g.minMax(0, 1) + ratioThresholds + g.highlight('B', 'red'),
    g.timeseries(
      'Ladder per path over time',
      'Each layer of each path in bytes per second (probe results hold their value between runs).',
      [g.target('instance_target_direction:fabric_ladder_bytes_per_second:max{%s}' % psel, '{{instance}} → {{target}} {{direction}} {{layer}}')],
      'Bps', w=12, h=14,
    ),
    g.timeseries(
      'RDMA port traffic against the RDMA rung',
      'Each RDMA port\'s applications (the port\'s bytes less what this node\'s RDMA probe wrote through it) beside the best uncontended RDMA rung from the node (dashed): how much of what RDMA proved the applications use. Who they are: the RDMA queue pairs per process and peer on the transfers dashboard.',
      [
        g.target('instance_device_port_direction:fabric_rdma_port_application_bytes_per_second:sum{%s}' % rsel, '{{instance}} {{device}}/{{port}} {{direction}}'),
        g.target('max by (instance) (instance_target_direction:fabric_probe_uncontended_throughput_bytes_per_second:max{%s, probe="rdma"})' % rsel, '{{instance}} RDMA rung'),
      ],
      'Bps', w=24, h=8,
    ) + { fieldConfig+: { overrides+: [{
      matcher: { id: 'byRegexp', options: '.*RDMA rung' },
      properties: [{ id: 'custom.lineStyle', value: { fill: 'dash', dash: [10, 10] } }],
    }] } },

    g.row('Fleet matrix'),
    g.table(
      'Fleet matrix: binding layer of each path, sending (fraction of line rate)',
      'Rows are nodes, columns peers: the lowest ceiling of the path from the row\'s node to the column\'s peer (sending), over the node\'s line rate. A red cell is a path that cannot carry line rate.',
      [g.target('%s{%s, direction="send"} / on (instance) group_left (node) %s{%s}' % [pairBindingName, rsel, lineRate, rsel], instant=true, table=true)],
      'percentunit',
      [{ id: 'groupingToMatrix', options: { rowField: 'node', columnField: 'target', valueField: 'Value', emptyValue: 'null' } }],
      w=12, h=8,
    ) + ratioThresholds + { fieldConfig+: { defaults+: { custom: { cellOptions: { type: 'color-background' } } } } },
    g.table(
      'Fleet matrix: binding layer of each path, receiving (fraction of line rate)',
      'Rows are nodes, columns peers: the lowest ceiling of the path from the column\'s peer into the row\'s node (receiving), over the node\'s line rate.',
      [g.target('%s{%s, direction="receive"} / on (instance) group_left (node) %s{%s}' % [pairBindingName, rsel, lineRate, rsel], instant=true, table=true)],
      'percentunit',
      [{ id: 'groupingToMatrix', options: { rowField: 'node', columnField: 'target', valueField: 'Value', emptyValue: 'null' } }],
      w=12, h=8,
    ) + ratioThresholds + { fieldConfig+: { defaults+: { custom: { cellOptions: { type: 'color-background' } } } } },

    g.row('What changed'),
    g.table(
      'Probe layers: baseline and current',
      'Per path and layer: the baseline (the %g quantile of uncontended results over %s: contended runs measured a share of the path and are left out, cpu_bound runs count because a node that became CPU-bound regressed), what the path used to do (the best of those baselines over %s), the best uncontended result of the last %d runs, and that result over what the path used to do. Below %g%% the FabricLayerRegression alert fires.' % [c.config.baselineQuantile, c.config.baselineWindow, c.config.longBaselineWindow, c.config.regressionRuns, 100 * (1 - c.config.regressionFraction)],
      [
        g.target('instance_target_direction:fabric_probe_throughput_bytes_per_second:baseline{%s}' % psel, instant=true, table=true),
        g.target('max_over_time(instance_target_direction:fabric_probe_uncontended_throughput_bytes_per_second:max{%s}[%ds])' % [psel, c.config.regressionRuns * c.config.probeIntervalSeconds], instant=true, table=true),
        g.target('instance_target_direction:fabric_probe_baseline_ratio:max{%s}' % psel, instant=true, table=true),
        g.target('instance_target_direction:fabric_probe_throughput_bytes_per_second:long_baseline{%s}' % psel, instant=true, table=true),
      ],
      'Bps',
      g.joinTables({ Time: null, 'Value #A': 'baseline', 'Value #B': 'current', 'Value #C': 'current / used to do', 'Value #D': 'used to do (%s)' % c.config.longBaselineWindow }),
      w=14, h=10,
    ) + g.fieldUnit('current / used to do', 'percentunit'),
    g.table(
      'Line rate and PCIe: now and %s maximum' % c.config.driftLookback,
      'The node-level layers against their own past: line rate (FabricNicSpeedChanged) and the PCIe path ceiling (FabricPciePathNarrowerThanBefore).',
      [
        g.target('label_replace(%s{%s}, "layer", "line", "", "") or label_replace(instance:fabric_pcie_ceiling_bytes_per_second:min{%s}, "layer", "pcie", "", "")' % [lineRate, rsel, rsel], instant=true, table=true),
        g.target('label_replace(max_over_time(%s{%s}[%s]), "layer", "line", "", "") or label_replace(max_over_time(instance:fabric_pcie_ceiling_bytes_per_second:min{%s}[%s]), "layer", "pcie", "", "")' % [lineRate, rsel, c.config.driftLookback, rsel, c.config.driftLookback], instant=true, table=true),
      ],
      'Bps',
      g.joinTables({ Time: null, 'Value #A': 'now', 'Value #B': '%s maximum' % c.config.driftLookback }),
      w=10, h=10,
    ),
    g.table(
      'Transfers: baseline and current',
      'Real bulk transfers per peer and direction: now and their %s baseline (%g quantile). Usage, not a ceiling: a drop is a change in workload or in the path.' % [c.config.baselineWindow, c.config.baselineQuantile],
      [
        g.target('instance_target_direction:fabric_transfers_bytes_per_second:baseline{%s}' % psel, instant=true, table=true),
        g.target('instance_target_direction:fabric_transfers_bytes_per_second:sum{%s}' % psel, instant=true, table=true),
      ],
      'Bps',
      g.joinTables({ Time: null, 'Value #A': 'baseline', 'Value #B': 'current' }),
      w=10, h=8,
    ),
    g.timeseries(
      'Probe layers over their baseline',
      'Best uncontended result of the last runs over what the path used to do (its best baseline in %s), per path and layer. Drift events (regression and drift alerts) are the orange annotations; the red line is the regression threshold.' % c.config.longBaselineWindow,
      [g.target('instance_target_direction:fabric_probe_baseline_ratio:max{%s}' % psel, '{{instance}} → {{target}} {{direction}} {{probe}}')],
      'percentunit', w=14, h=8,
    ) + g.thresholds([[null, 'red'], [1 - c.config.regressionFraction, 'transparent']])
    + { fieldConfig+: { defaults+: { custom: { thresholdsStyle: { mode: 'line' } } } } },
  ],
  extraVariables=[targetVar],
  annotations=[g.annotation(
    'Drift events',
    'ALERTS{alertname=~"%s", alertstate="firing", %s}' % [driftAlerts, rsel],
    '{{alertname}}',
    '{{instance}} {{target}} {{direction}} {{probe}} {{sysctl}}',
  )],
)
