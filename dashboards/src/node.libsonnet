// Node detail: the passive side of the ladder on one node. PCIe path per NIC,
// NIC counters against the fleet, softnet, retransmits, socket buffers against
// the bandwidth-delay product, routes and MTU.
local g = import '../lib/grafana.libsonnet';
local c = import 'common.libsonnet';

local sel = c.sel;
// The selected fabric NICs' offload states with their node's fleet role, as
// the rules label them (rules/mixin/peers.libsonnet withNodeRole).
local offloadsWithNodeRole = '((fabric_netdev_offload_enabled{%(sel)s, role="fabric"} * on (instance) group_left (node_role) topk by (instance) (1, max by (instance, node_role) (label_replace(fabric_fleet_node_info{%(sel)s}, "node_role", "$1", "role", "(.*)")))) or on (instance) fabric_netdev_offload_enabled{%(sel)s, role="fabric"})' % { sel: sel };
local rsel = c.rsel;
local ri = '$__rate_interval';
local nicRate(metric) = 'sum by (instance, device, direction) (rate(%s{%s}[%s]))' % [metric, sel, ri];

g.dashboard(
  'fabric-ladder-node',
  'Fabric node detail',
  'The passive collectors of one node: PCIe path of each NIC, NIC counters against the fleet, softnet squeezes, TCP retransmits, socket buffers against the bandwidth-delay product, routes and MTU.',
  [
    g.row('PCIe path per NIC'),
    g.table(
      'PCIe path per device: current and capable',
      'For every PCIe device with a network interface: the narrowest trained link between it and its root port (current) against what the device and every hop could train at (capable), the downtrained hops and whether the slot is the limit.',
      [
        g.target('fabric_pcie_path_current_bandwidth_bytes_per_second{%s} * on (instance, address) group_left (device) fabric_pcie_netdev_info{%s}' % [sel, sel], instant=true, table=true),
        g.target('fabric_pcie_path_capable_bandwidth_bytes_per_second{%s} * on (instance, address) group_left (device) fabric_pcie_netdev_info{%s}' % [sel, sel], instant=true, table=true),
        g.target('fabric_pcie_path_downtrained_hops{%s} * on (instance, address) group_left (device) fabric_pcie_netdev_info{%s}' % [sel, sel], instant=true, table=true),
        g.target('fabric_pcie_path_slot_limited{%s} * on (instance, address) group_left (device) fabric_pcie_netdev_info{%s}' % [sel, sel], instant=true, table=true),
      ],
      'Bps',
      g.joinTables({ Time: null, job: null, 'Value #A': 'current', 'Value #B': 'capable', 'Value #C': 'downtrained hops', 'Value #D': 'slot limited' }),
      w=16, h=7,
    ) + g.fieldUnit('downtrained hops', 'short') + g.fieldUnit('slot limited', 'bool_yes_no'),
    g.barGauge(
      'PCIe path: current over capable',
      'Trained bandwidth of each NIC\'s PCIe path over what it could train at. Below 1 a link lost lanes or speed (re-seat, check the slot).',
      [g.target('fabric_pcie_path_current_bandwidth_bytes_per_second{%s} / fabric_pcie_path_capable_bandwidth_bytes_per_second{%s} * on (instance, address) group_left (device) fabric_pcie_netdev_info{%s}' % [sel, sel, sel], '{{instance}} {{device}} ({{address}})', instant=true)],
      'percentunit', w=8, h=7,
    ) + g.minMax(0, 1) + g.thresholds([[null, 'red'], [0.99, 'green']]),

    g.row('NIC counters'),
    g.timeseries(
      'Pause frames against the fleet median',
      'Pause frames sent (tx: this node asked its peer to stop) and received (rx), per NIC, with the fleet median per direction. A node far above the median throttles the fabric (FabricTxPauseAboveFleetMedian).',
      [
        g.target(nicRate('fabric_netdev_pause_frames_total'), '{{instance}} {{device}} {{direction}}'),
        // The whole fleet of the job, whatever instances are selected.
        g.target('quantile by (direction) (0.5, sum by (instance, direction) (rate(fabric_netdev_pause_frames_total{job=~"$job"}[%s])))' % ri, 'fleet median {{direction}}') {
          fleet:: true,
        },
      ],
      'pps', w=12,
    ),
    g.timeseries(
      'Discards and drops',
      'Frames the NIC discarded at the PHY (no buffer), out-of-buffer drops of the receive queues, and the kernel\'s dropped counter, per NIC and direction.',
      [
        g.target(nicRate('fabric_netdev_phy_discards_total'), '{{instance}} {{device}} phy discards {{direction}}'),
        g.target(nicRate('fabric_netdev_out_of_buffer_drops_total'), '{{instance}} {{device}} out of buffer {{direction}}'),
        g.target(nicRate('fabric_netdev_dropped_total'), '{{instance}} {{device}} dropped {{direction}}'),
      ],
      'pps', w=12,
    ),
    g.timeseries(
      'Signal integrity',
      'Corrected bit errors and symbol errors at the PHY, CRC errors, and PCIe signal-integrity events the NIC counted: rising counts mean a cable, transceiver or slot going bad.',
      [
        g.target(nicRate('fabric_netdev_phy_corrected_bit_errors_total'), '{{instance}} {{device}} corrected bits {{direction}}'),
        g.target(nicRate('fabric_netdev_phy_symbol_errors_total'), '{{instance}} {{device}} symbol errors {{direction}}'),
        g.target(nicRate('fabric_netdev_phy_crc_errors_total'), '{{instance}} {{device}} CRC errors {{direction}}'),
        g.target(nicRate('fabric_netdev_pci_signal_integrity_events_total'), '{{instance}} {{device}} PCIe signal integrity {{direction}}'),
      ],
      'cps', w=24,
    ),

    g.row('Link health'),
    g.timeseries(
      'Link flaps and RDMA link errors',
      'Carrier down transitions of each interface (sysfs carrier_down_count; role label: fabric, storage, management, other) and RDMA link downs and error recoveries, per rate interval. Judged over an hour by FabricLinkFlapping and FabricRdmaLinkUnstable, never one increment.',
      [
        g.target('sum by (instance, device, role) (increase(fabric_netdev_carrier_transitions_total{%s, transition="down"}[%s]))' % [sel, ri], '{{instance}} {{device}} ({{role}}) carrier down'),
        g.target('sum by (instance, device, port) (increase(fabric_rdma_port_link_downed_total{%s}[%s]) + increase(fabric_rdma_port_link_error_recoveries_total{%s}[%s]))' % [sel, ri, sel, ri], '{{instance}} {{device}}/{{port}} RDMA link down or recovery'),
      ],
      'short', w=12,
    ),
    g.timeseries(
      'Pre-FEC bit error ratio against the budget',
      'Bits the PHY corrected over the bits the line carried (instance_device:fabric_netdev_pre_fec_ber:rate5m), per NIC, and FEC codewords corrected per second from the kernel\'s FEC statistics. Above the budget (FabricPreFecBerAboveBudget) the cable or optic is losing margin.',
      [
        g.target('instance_device:fabric_netdev_pre_fec_ber:rate5m{%s}' % rsel, '{{instance}} {{device}} pre-FEC BER'),
        g.target('sum by (instance, device) (rate(fabric_netdev_fec_corrected_blocks_total{%s}[%s]))' % [sel, ri], '{{instance}} {{device}} corrected codewords/s'),
      ],
      'sci', w=12,
    ),
    g.timeseries(
      'PCIe link changes between scrapes',
      'Speed and width transitions of each device\'s PCIe link counted by the exporter\'s link sampler (every 0.5 s, so a drop and recovery between two scrapes is seen), the share of time it spent below what it can train to (FabricPcieLinkUnstable), and correctable AER errors per second, the TLP retries a marginal link costs before anything fails (FabricPcieAerCorrectableBurst).',
      [
        g.target('sum by (instance, address, dimension) (increase(fabric_pcie_link_transitions_total{%s}[%s]))' % [sel, ri], '{{instance}} {{address}} {{dimension}} transitions'),
        g.target('sum by (instance, address, dimension) (rate(fabric_pcie_link_below_capable_seconds_total{%s}[%s]))' % [sel, ri], '{{instance}} {{address}} below capable {{dimension}} (share of time)'),
        g.target('sum by (instance, address) (rate(fabric_pcie_aer_errors_total{%s, severity="correctable"}[%s]))' % [sel, ri], '{{instance}} {{address}} AER correctable/s'),
      ],
      'short', w=12,
    ),
    g.table(
      'Receive path: fabric NICs that differ from their peers',
      'Offloads of each fabric NIC against the usual state of the fabric NICs on nodes of its fleet role (node_role; the median of 0/1 is the majority; FabricOffloadDiffersFromPeers), and receive interrupt coalescing. A node whose receive path differs here is the first suspect for FabricReceiveBackpressure on that node only.',
      [
        g.target(offloadsWithNodeRole, instant=true, table=true),
        // The recorded median over the whole fleet, whatever instances are selected.
        g.target('0 * %s + on (offload, node_role) group_left () offload:fabric_netdev_offload_enabled:fleet_median' % offloadsWithNodeRole, instant=true, table=true) {
          fleet:: true,
        },
        g.target('max by (instance, device) (fabric_netdev_coalesce_usecs{%s, role="fabric", direction="rx"})' % sel, instant=true, table=true),
      ],
      'short',
      g.joinTables({ Time: null, job: null, role: null, 'Value #A': 'enabled', 'Value #B': 'fleet usual', 'Value #C': 'rx coalesce usecs' }),
      w=12,
    ),
    g.table(
      'Receive path: differs from peers',
      'Each receive-path fact of the node\'s fabric and storage NICs (IRQs off the NIC\'s NUMA node, RPS, XPS, coalescing, RX ring fill, pause, ASPM policy, CPU governor, offloads), its value, how many of the fleet\'s NICs of the same role on nodes of the same fleet role (node_role) share that value, and how many have the most common value (the recording rules of rules/mixin/peers.libsonnet). Fewer sharing than the mode is a minority: FabricReceivePathDiffersFromPeers, the first causes to check under FabricReceiveBackpressure.',
      [
        // The recorded series carry no job label (they aggregate by instance).
        g.target('instance_device_fact:fabric_receive_path:peers_sharing{instance=~"$instance"}', instant=true, table=true),
        g.target('0 * instance_device_fact:fabric_receive_path:peers_sharing{instance=~"$instance"} + on (role, node_role, fact) group_left () role_fact:fabric_receive_path:mode_nics', instant=true, table=true) {
          fleet:: true,
        },
      ],
      'short',
      g.joinTables({ Time: null, 'Value #A': 'NICs sharing its value', 'Value #B': 'NICs with the most common value' }),
      w=24,
    ),

    g.row('CPU and TCP'),
    g.timeseries(
      'Softnet time squeezes per CPU',
      'Times per second the receive softirq ran out of budget with packets left (net.core.netdev_budget), per CPU: a CPU that cannot keep up with its receive queues.',
      [g.target('sum by (instance, cpu) (rate(fabric_softnet_time_squeeze_total{%s}[%s]))' % [sel, ri], '{{instance}} cpu {{cpu}}')],
      'cps', w=12,
    ),
    g.timeseries(
      'TCP retransmit ratio',
      'Segments retransmitted over segments sent, per node. Above about 1%% single streams lose most of their throughput.',
      [g.target('sum by (instance) (rate(fabric_tcp_segments_retransmitted_total{%s}[%s])) / sum by (instance) (rate(fabric_tcp_segments_sent_total{%s}[%s]))' % [sel, ri, sel, ri], '{{instance}}')],
      'percentunit', w=12,
    ),
    g.barGauge(
      'Socket buffer maxima against the bandwidth-delay product',
      'The four socket-buffer maxima (net.core.rmem_max/wmem_max, tcp_rmem/tcp_wmem max) beside the largest bandwidth-delay product of the node\'s paths (line rate times the probes\' RTT). A buffer below the BDP caps one stream below line rate (FabricSocketBufferBelowBdp).',
      [
        g.target('instance_sysctl:fabric_socket_buffer_max_bytes:max{%s}' % rsel, '{{instance}} {{sysctl}}', instant=true),
        g.target('max by (instance) (max by (instance, target) (fabric_probe_min_rtt_seconds{%s, probe=~"tcp_multi|tcp_single"}) * on (instance) group_left () instance:fabric_line_rate_bytes_per_second:max{%s})' % [sel, rsel], '{{instance}} bandwidth-delay product', instant=true),
      ],
      'bytes', w=24,
    ) + g.highlight('B', 'orange'),

    g.row('What this node used to do'),
    g.table(
      'Probe layers: what each path used to do, its baseline and now',
      'Per path and layer of the selected nodes: what it used to do (the best %s baseline of the last %s: "this node used to send 194 Gb/s" stays here for a month after a slow or stepwise decline), the %s baseline (the %g quantile of uncontended results; it follows a decline within a week), the best uncontended result of the last %d runs, and that result over what it used to do. Below %g%% FabricLayerRegression fires, once, for as long as the path stays there.' % [c.config.baselineWindow, c.config.longBaselineWindow, c.config.baselineWindow, c.config.baselineQuantile, c.config.regressionRuns, 100 * (1 - c.config.regressionFraction)],
      [
        g.target('instance_target_direction:fabric_probe_throughput_bytes_per_second:long_baseline{%s}' % rsel, instant=true, table=true),
        g.target('instance_target_direction:fabric_probe_throughput_bytes_per_second:baseline{%s}' % rsel, instant=true, table=true),
        g.target('max_over_time(instance_target_direction:fabric_probe_uncontended_throughput_bytes_per_second:max{%s}[%ds])' % [rsel, c.config.regressionRuns * c.config.probeIntervalSeconds], instant=true, table=true),
        g.target('instance_target_direction:fabric_probe_baseline_ratio:max{%s}' % rsel, instant=true, table=true),
      ],
      'Bps',
      g.joinTables({ Time: null, 'Value #A': 'used to do', 'Value #B': '%s baseline' % c.config.baselineWindow, 'Value #C': 'now', 'Value #D': 'now / used to do' }),
      w=24,
    ) + g.fieldUnit('now / used to do', 'percentunit'),

    g.row('Routes and MTU'),
    g.table(
      'Route and MTU checks per peer',
      'The path probe\'s view of each peer: whether the route leaves through the configured fabric interface, the route MTU, the expected MTU and whether a DF-set jumbo echo passed.',
      [
        g.target('fabric_probe_egress_matches_expected{%s, probe="path"}' % sel, instant=true, table=true),
        g.target('fabric_probe_route_mtu_bytes{%s, probe="path"}' % sel, instant=true, table=true),
        g.target('fabric_probe_jumbo_frame_bytes{%s, probe="path"}' % sel, instant=true, table=true),
        g.target('fabric_probe_jumbo_frames_pass{%s, probe="path"}' % sel, instant=true, table=true),
      ],
      'bytes',
      g.joinTables({ Time: null, job: null, probe: null, direction: null, 'Value #A': 'route on fabric interface', 'Value #B': 'route MTU', 'Value #C': 'expected MTU', 'Value #D': 'jumbo echo passed' }),
      w=14,
    ) + g.fieldUnit('route on fabric interface', 'bool_yes_no') + g.fieldUnit('jumbo echo passed', 'bool_yes_no'),
    g.table(
      'Interface MTU against the fleet',
      'The fabric interface MTU of each node and the MTU the fleet configuration expects of it.',
      [
        g.target('instance:fabric_interface_mtu_bytes:max{%s}' % rsel, instant=true, table=true),
        g.target('max by (instance, node, expected_mtu) (fabric_fleet_node_info{%s})' % sel, instant=true, table=true),
      ],
      'bytes',
      g.joinTables({ Time: null, 'Value #A': 'MTU', 'Value #B': null, expected_mtu: 'expected MTU' }),
      w=10,
    ),
  ],
)
