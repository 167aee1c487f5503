// Fabric fleet: the fleet at 16 to 1,000 nodes (issue 22 item 8). Every panel
// reads recording rules of rules/mixin/fleet.libsonnet whose series count is
// bounded by racks (rack x rack), by the nodes of the selected racks, or by K
// (the worst paths), so the panels stay readable and the queries cheap however
// many nodes the fleet has. Drill down: a cell of the rack matrix selects its
// racks; the node x rack matrix and the worst paths follow the selection.
local g = import '../lib/grafana.libsonnet';
local c = import 'common.libsonnet';

local worst = 20;  // K of the worst-paths table
local topology = 'instance:fabric_fleet_topology:info';
local topoSel = '%s{instance=~"$instance", rack=~"$rack", plane=~"$plane"}' % topology;
local rackSel = 'rack=~"$rack", target_rack=~"$target_rack"';
local ratioThresholds = g.thresholds([[null, 'red'], [0.5, 'orange'], [0.8, 'green']]);
local colored = { fieldConfig+: { defaults+: { custom: { cellOptions: { type: 'color-background' } } } } };
// A cell of a rack matrix links to this dashboard with its two racks selected:
// the row's rack is field 0 of the row (groupingToMatrix names that column
// "rack\target_rack"), the target rack the cell's column name.
local drill = { fieldConfig+: { defaults+: { links: [{
  title: 'Drill down: the nodes and worst paths of ${__data.fields[0]} into ${__field.name}',
  url: '/d/fabric-ladder-fleet?${datasource:queryparam}&${job:queryparam}&var-rack=${__data.fields[0]}&var-target_rack=${__field.name}',
}] } } };
local fleetWide(t) = t { fleet:: true };
// The most samples a query may load (Prometheus' totalQueryableSamples for the
// instant query with every variable at All), as a polynomial in the fleet's
// dimensions: N nodes, R racks, D the mesh degree (peers a node publishes
// per-pair results for), V directions per path (send, receive, both: at most
// 3), L ladder layers, A firing alert series per node, M the latency mesh's
// peers per node (probes.mesh.max_peers, 16 by default).
// The scale-out test (tests/scale) evaluates every query on the central server
// of its fleet and fails one above its bound: linear in N (per-pair panels in
// N * D), never in N * N.
local cost(t, bound) = t { cost:: bound };
// The peers' topology from each node's own row (N series, not the N * (N - 1)
// of instance_target:fabric_fleet_peer_topology:info): `target` is the peer's
// fleet name, its rack and plane as target_rack and target_plane.
local asTarget(sel) = 'label_replace(label_replace(label_replace(%s, "target", "$1", "node", "(.+)"), "target_rack", "$1", "rack", "(.+)"), "target_plane", "$1", "plane", "(.*)")' % sel;
local pathRatio = 'instance_target_direction:fabric_path_line_ratio:min{instance=~"$instance"}';
// The latency mesh runs only where the peers' responders answer: the test
// fleets replay recorded results and run none.
local noMesh = 'the test fleets run no latency mesh (it connects to the peers\' responders; tests/netns/path_mesh_netns_test.py covers its series and alerts)';

local rackVar(name, label, from) = g.queryVariable(
  name, label, 'label_values(%s{instance=~"$instance"}, %s)' % [topology, from]
);

g.dashboard(
  'fabric-ladder-fleet',
  'Fabric fleet',
  'The fleet by rack and plane: rack x rack path matrices, per-rack ladders, the worst paths, and how many nodes show each bottleneck shape (the fleet circuit breaker). Readable and cheap at 1,000 nodes: every panel reads per-rack recording rules or a bounded top-K.',
  [
    g.row('Rack x rack'),
    g.table(
      'Rack matrix: worst path from each rack into each rack, sending (fraction of line rate)',
      'Rows are the sending rack, columns the receiving rack: the lowest binding ceiling of any path from a node of the row into the column (per-pair results and the per-node summaries per target rack), over the sender\'s line rate. A red column is a rack (or its uplinks) everyone reaches slowly; a red row is a rack that sends slowly. Click a cell to drill down.',
      [cost(fleetWide(g.target('rack_target_rack_direction:fabric_path_line_ratio:min{%s, direction="send"}' % rackSel, instant=true, table=true)), 'R*R')],
      'percentunit',
      [{ id: 'groupingToMatrix', options: { rowField: 'rack', columnField: 'target_rack', valueField: 'Value', emptyValue: 'null' } }],
      w=12, h=9,
    ) + ratioThresholds + colored + drill,
    g.table(
      'Rack matrix: median node, sending (fraction of line rate)',
      'As the worst-path matrix, but the median over the row\'s nodes of each node\'s worst path into the column: a cell red here and in the worst matrix is the whole rack pair, a cell red only in the worst matrix is one node or one path.',
      [cost(fleetWide(g.target('rack_target_rack_direction:fabric_path_line_ratio:median{%s, direction="send"}' % rackSel, instant=true, table=true)), 'R*R')],
      'percentunit',
      [{ id: 'groupingToMatrix', options: { rowField: 'rack', columnField: 'target_rack', valueField: 'Value', emptyValue: 'null' } }],
      w=12, h=9,
    ) + ratioThresholds + colored + drill,

    g.row('Per-rack ladders'),
    g.barGauge(
      'Ladder per rack: median node (fraction of line rate)',
      'Each layer of the ladder (the best each node proved on any path) over line rate, as the median node of each selected rack.',
      [cost(fleetWide(g.target('rack:fabric_ladder_line_ratio:median{rack=~"$rack"}', '{{rack}} {{layer}}', instant=true)), 'R*L')],
      'percentunit', w=12, h=10,
    ) + g.minMax(0, 1) + ratioThresholds,
    g.barGauge(
      'Ladder per rack: worst node (fraction of line rate)',
      'Each layer as the worst node of each selected rack: a layer far below the median bar is one node to look at (select the rack, then the node x rack matrix).',
      [cost(fleetWide(g.target('rack:fabric_ladder_line_ratio:min{rack=~"$rack"}', '{{rack}} {{layer}}', instant=true)), 'R*L')],
      'percentunit', w=12, h=10,
    ) + g.minMax(0, 1) + ratioThresholds,

    g.row('Nodes and paths'),
    g.table(
      'Node x rack: each node\'s worst path into each rack, sending (fraction of line rate)',
      'Rows are the nodes of the selected racks and planes, columns the receiving racks: bounded by (nodes of the selection) x racks, so select a rack at 1,000 nodes.',
      [cost(g.target('instance_target_rack_direction:fabric_path_line_ratio:min{instance=~"$instance", target_rack=~"$target_rack", direction="send"} * on (instance) group_left (node) %s' % topoSel, instant=true, table=true), 'N*R + N')],
      'percentunit',
      [{ id: 'groupingToMatrix', options: { rowField: 'node', columnField: 'target_rack', valueField: 'Value', emptyValue: 'null' } }],
      w=12, h=10,
    ) + ratioThresholds + colored,
    g.table(
      'The %d worst paths' % worst,
      'The %d paths (node, peer, direction) with the lowest binding ceiling over line rate among the selected racks, planes and target racks, with both ends\' racks: where to start.' % worst,
      // A path to a peer whose own exporter is not scraped (down, or outside
      // the job) has no topology row: it stays in, without racks, rather than
      // dropping out of the worst paths it most likely leads.
      [cost(fleetWide(g.target('bottomk(%(k)d, (%(p)s * on (target) group_left (target_rack, target_plane) %(peer)s) or (%(p)s unless on (target) %(all)s))' % {
        k: worst,
        p: '%s * on (instance) group_left (node, rack, plane) %s' % [pathRatio, topoSel],
        peer: asTarget('%s{rack=~"$target_rack"}' % topology),
        all: asTarget(topology),
      }, instant=true, table=true)), '2*N*D*V + 4*N')],
      'percentunit',
      [g.organize({ Time: null, __name__: null, job: null, Value: 'fraction of line rate' })],
      w=12, h=10,
    ) + ratioThresholds + g.fieldUnit('fraction of line rate', 'percentunit'),

    g.row('Path mesh'),
    g.timeseries(
      'The %d worst pairs over time (binding rate over line rate)' % worst,
      'Each of the %d paths (node, peer, direction) with the lowest binding ceiling over the sender\'s line rate at each moment, among the selected racks and planes: a path that drops into this set, or a step shared by many, dates the change. Bounded by the bottom %d at each step, not by the pairs.' % [worst, worst],
      [cost(g.target('bottomk(%d, %s * on (instance) group_left (node) %s)' % [worst, pathRatio, topoSel], '{{node}} → {{target}} {{direction}}'), 'N*D*V + N')],
      'percentunit', w=24, h=8,
    ) + g.minMax(0, 1),
    g.table(
      'Path mesh: the %d lossiest pairs (latency probes lost, last 5 min)' % worst,
      'The latency mesh (TCP connects to each node\'s mesh peers every few seconds, between bandwidth rounds): the %d pairs losing the largest share of their probes, among the selected racks and planes. FabricPathLoss fires on a pair above %g; many pairs into one target is that target (FabricPathTargetLossy).' % [worst, c.config.pathLossRatio],
      [cost(g.target('topk(%d, (instance_target:fabric_path_lost:ratio_rate5m{instance=~"$instance"} > 0) * on (instance) group_left (node, rack, plane) %s)' % [worst, topoSel], instant=true, table=true) { noDataOnFixtures:: noMesh }, 'N*M + N')],
      'percentunit',
      [g.organize({ Time: null, __name__: null, job: null, Value: 'probes lost' })],
      w=12, h=8,
    ) + g.thresholds([[null, 'green'], [0.01, 'orange'], [c.config.pathLossRatio, 'red']]) + g.fieldUnit('probes lost', 'percentunit'),
    g.table(
      'Path mesh: the %d pairs furthest above their round-trip baseline' % worst,
      'The latency mesh\'s median round trip of each pair over the last 5 minutes against its own median over the hour before (%s ago): the %d largest ratios among the selected racks and planes. FabricPathRttJump fires at %g times the baseline (and %g µs more) for %s.' % [c.config.pathRttBaselineOffset, worst, c.config.pathRttJumpFactor, c.config.pathRttJumpMinSeconds * 1e6, c.config.pathRttJumpFor],
      [cost(g.target('topk(%d, instance_target:fabric_path_rtt_seconds:median5m{instance=~"$instance"} / instance_target:fabric_path_rtt_seconds:median_baseline{instance=~"$instance"} * on (instance) group_left (node, rack, plane) %s)' % [worst, topoSel], instant=true, table=true) { noDataOnFixtures:: noMesh }, '2*N*M + N')],
      'short',
      [g.organize({ Time: null, __name__: null, job: null, Value: 'round trip over baseline' })],
      w=12, h=8,
    ) + g.thresholds([[null, 'green'], [2, 'orange'], [c.config.pathRttJumpFactor, 'red']]),

    g.row('Shapes across the fleet'),
    g.table(
      'Nodes per bottleneck shape',
      'How many nodes have a firing alert of each shape (the `shape` label), out of all nodes scraped. Above %g of the fleet (and at least %d nodes) FabricFleetWideShape fires and Alertmanager holds back the per-node alerts of that shape: one shared cause.' % [c.config.fleetShapeShare, c.config.fleetShapeMinNodes],
      [cost(fleetWide(g.target('count by (shape) (count by (shape, instance) (ALERTS{alertname=~"Fabric.*", alertstate="firing", shape!=""}))', instant=true, table=true)), 'N*A + A')],
      'short',
      [g.organize({ Time: null, Value: 'nodes' })],
      w=12, h=8,
    ),
    g.table(
      'Nodes per rack and role',
      'The fleet config\'s topology as the exporters report it (fabric_fleet_node_info): nodes per rack, plane and role among the selection.',
      [cost(g.target('count by (rack, plane, role) (%s)' % topoSel, instant=true, table=true), 'N')],
      'short',
      [g.organize({ Time: null, Value: 'nodes' })],
      w=12, h=8,
    ),
  ],
  extraVariables=[
    rackVar('rack', 'Rack', 'rack'),
    rackVar('plane', 'Plane', 'plane'),
    rackVar('target_rack', 'Target rack', 'rack'),
  ],
)
