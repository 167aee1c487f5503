// The ladder as recording rules: per node (instance) and per node pair
// (instance, target, direction), each layer's ceiling in bytes/s, as a
// fraction of line rate, and the binding (lowest) layer.
// Layers: line, pcie, rdma, tcp_multi, tcp_single, storage_read,
// storage_write (probe rungs) and transfers (real bulk flows, not a ceiling).
{
  prometheusRules+:: {
    local c = $._config,
    local rung = 'probe=~"rdma|tcp_multi|tcp_single|storage_read|storage_write"',
    local pairs = 'instance_target_direction:fabric_ladder_bytes_per_second:max',
    groups+: [
      {
        name: 'fabric-ladder.joins',
        rules: [
          {
            // This node's fabric interface as a `device` label, for netdev joins.
            record: 'instance_device:fabric_fleet_interface:info',
            expr: |||
              label_replace(
                max by (instance, node, fabric_interface) (fabric_fleet_node_info{%(selector)s}),
                "device", "$1", "fabric_interface", "(.+)"
              )
            ||| % c,
          },
          {
            // The PCI address of the fabric interface, for PCIe path joins.
            record: 'instance_address:fabric_fleet_interface_pcie:info',
            expr: |||
              max by (instance, address, device) (fabric_pcie_netdev_info{%(selector)s})
              * on (instance, device) group_left (node)
                instance_device:fabric_fleet_interface:info
            ||| % c,
          },
          {
            // Peers by address (the flows collector's `peer`) with their name as `target`:
            // from the fleet's peer info, and for peers a fleet above the probe detail bound
            // publishes no peer info for (exporter/metrics/fleet_info.h), from the flows'
            // own `target` (the flows collector names fleet members itself).
            record: 'instance_peer:fabric_fleet_peer:info',
            expr: |||
              label_replace(
                label_replace(
                  max by (instance, peer, address) (fabric_fleet_peer_info{%(selector)s}),
                  "target", "$1", "peer", "(.+)"
                ),
                "peer", "$1", "address", "(.+)"
              )
              or on (instance, peer)
              label_replace(
                group by (instance, peer, target) (fabric_flows_bulk_flows{%(selector)s, target!=""}),
                "address", "$1", "peer", "(.+)"
              )
            ||| % c,
          },
        ],
      },
      {
        name: 'fabric-ladder.layers',
        rules: [
          {
            record: 'instance:fabric_line_rate_bytes_per_second:max',
            expr: |||
              max by (instance, node) (
                fabric_netdev_speed_bytes{%(selector)s}
                * on (instance, device) group_left (node)
                  instance_device:fabric_fleet_interface:info
              )
            ||| % c,
          },
          {
            record: 'instance:fabric_interface_mtu_bytes:max',
            expr: |||
              max by (instance, node) (
                fabric_netdev_mtu_bytes{%(selector)s}
                * on (instance, device) group_left (node)
                  instance_device:fabric_fleet_interface:info
              )
            ||| % c,
          },
          {
            // The fabric interface runs the MTU the fleet config declares for this node
            // (fabric_fleet_node_info's expected_mtu; absent where none is declared or the
            // interface runs another): count_values turns the MTU into a label to match it.
            record: 'instance:fabric_interface_mtu_as_configured:info',
            expr: |||
              count_values by (instance, node) ("expected_mtu", instance:fabric_interface_mtu_bytes:max)
              and on (instance, expected_mtu)
                fabric_fleet_node_info{%(selector)s, expected_mtu!=""}
            ||| % c,
          },
          {
            // Narrowest trained PCIe link between the fabric NIC and its root port.
            record: 'instance:fabric_pcie_ceiling_bytes_per_second:min',
            expr: |||
              min by (instance, node) (
                fabric_pcie_path_current_bandwidth_bytes_per_second{%(selector)s}
                * on (instance, address) group_left (node)
                  instance_address:fabric_fleet_interface_pcie:info
              )
            ||| % c,
          },
          {
            record: 'instance_target_direction:fabric_probe_throughput_bytes_per_second:max',
            expr: |||
              max by (instance, target, direction, probe) (
                fabric_probe_throughput_bytes_per_second{%(selector)s, %(rung)s}
              )
            ||| % (c { rung: rung }),
          },
          {
            // Real bulk transfers per peer: sent (any limiter but remote_sender) and received.
            // The probe's own sockets are the ladder, not a transfer.
            record: 'instance_target_direction:fabric_transfers_bytes_per_second:sum',
            expr: |||
              label_replace(
                sum by (instance, target) (
                  fabric_flows_goodput_bytes_per_second{%(selector)s, limiter!="remote_sender", application!="fabric_probe"}
                  * on (instance, peer) group_left (target) instance_peer:fabric_fleet_peer:info
                ),
                "direction", "send", "", ""
              )
              or
              label_replace(
                sum by (instance, target) (
                  fabric_flows_goodput_bytes_per_second{%(selector)s, limiter="remote_sender", application!="fabric_probe"}
                  * on (instance, peer) group_left (target) instance_peer:fabric_fleet_peer:info
                ),
                "direction", "receive", "", ""
              )
            ||| % c,
          },
        ],
      },
      {
        name: 'fabric-ladder.ladder',
        rules: [
          {
            // A rung's latest result, unless it shared its path with other traffic
            // (contended): then the last uncontended one while it stands (younger than
            // probeEvidenceMaxAgeSeconds), what the path carries rather than what a transfer
            // left of it. The ladder page shows the same.
            record: pairs,
            expr: |||
              max by (instance, target, direction, layer) (
                label_replace(
                  (
                    instance_target_direction:fabric_probe_uncontended_throughput_bytes_per_second:max
                    and on (instance, probe, target, direction)
                      (fabric_probe_verdict{%(selector)s, verdict="contended"} == 1)
                  )
                  or on (instance, probe, target, direction)
                    instance_target_direction:fabric_probe_throughput_bytes_per_second:max,
                  "layer", "$1", "probe", "(.+)"
                )
              )
              or
              label_replace(
                instance_target_direction:fabric_transfers_bytes_per_second:sum,
                "layer", "transfers", "", ""
              )
              or
              label_replace(
                max by (instance, target, direction) (
                  instance_target_direction:fabric_probe_throughput_bytes_per_second:max{probe!~"storage_.*"}
                ) * 0
                + on (instance) group_left () instance:fabric_line_rate_bytes_per_second:max,
                "layer", "line", "", ""
              )
              or
              label_replace(
                max by (instance, target, direction) (
                  instance_target_direction:fabric_probe_throughput_bytes_per_second:max{probe!~"storage_.*"}
                ) * 0
                + on (instance) group_left () instance:fabric_pcie_ceiling_bytes_per_second:min,
                "layer", "pcie", "", ""
              )
            ||| % c,
          },
          {
            record: 'instance_target_direction:fabric_ladder_line_ratio:max',
            expr: |||
              %s
              / on (instance) group_left () instance:fabric_line_rate_bytes_per_second:max
            ||| % pairs,
          },
          {
            // The lowest ceiling of the pair. Transfers are usage, not a ceiling,
            // and tcp_single is a per-stream ceiling (a property of the tool).
            record: 'instance_target_direction:fabric_ladder_binding_bytes_per_second:min',
            expr: |||
              %(p)s{layer!~"transfers|tcp_single"}
              == on (instance, target, direction) group_left ()
                min by (instance, target, direction) (%(p)s{layer!~"transfers|tcp_single"})
            ||| % { p: pairs },
          },
          {
            // Per node: the best each layer proved on any path (line and PCIe always).
            record: 'instance:fabric_ladder_bytes_per_second:max',
            expr: |||
              max by (instance, layer) (%s{layer!~"line|pcie"})
              or label_replace(
                max by (instance) (instance:fabric_line_rate_bytes_per_second:max),
                "layer", "line", "", ""
              )
              or label_replace(
                min by (instance) (instance:fabric_pcie_ceiling_bytes_per_second:min),
                "layer", "pcie", "", ""
              )
            ||| % pairs,
          },
          {
            record: 'instance:fabric_ladder_line_ratio:max',
            expr: |||
              instance:fabric_ladder_bytes_per_second:max
              / on (instance) group_left () instance:fabric_line_rate_bytes_per_second:max
            |||,
          },
          {
            // The node's network binding layer (storage has its own pairs).
            record: 'instance:fabric_ladder_binding_bytes_per_second:min',
            expr: |||
              instance:fabric_ladder_bytes_per_second:max{layer=~"line|pcie|rdma|tcp_multi"}
              == on (instance) group_left ()
                min by (instance) (instance:fabric_ladder_bytes_per_second:max{layer=~"line|pcie|rdma|tcp_multi"})
            |||,
          },
        ],
      },
    ],
  },
}
