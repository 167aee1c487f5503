// Link health between probe runs (issue 26): carrier flaps and RDMA link
// errors judged over a window (never one increment), the pre-FEC bit error
// rate against a budget, PCIe links that retrain between scrapes, AER
// correctable-error bursts, a path that stays slow after its NIC flapped,
// and a fabric NIC whose offloads differ from its peers'.
{
  _config+:: {
    // Down transitions of a carrier (or RDMA link_downed) within
    // linkFlapWindow that make a flapping link: one is a reboot or a cable
    // swap, three in an hour is a link that cannot hold.
    linkFlapCount: 3,
    linkFlapWindow: '1h',
    // Pre-FEC bit error ratio budget (corrected bits / line bits). RS(544,514)
    // corrects up to ~2.4e-4 and RS(528,514) ~5e-5; a link at 1e-6 still
    // delivers error-free frames but has lost most of its margin, early
    // enough to replace the cable or optic in a maintenance window.
    preFecBerBudget: 1e-6,
    // PCIe speed or width changes within pcieTransitionWindow (the link
    // sampler's counts, seen between scrapes): two is one drop and recovery.
    pcieTransitionCount: 4,
    pcieTransitionWindow: '1h',
    // AER correctable errors per second that make a burst.
    aerCorrectableRate: 1,
    // After a flap of the node's fabric NIC (a carrier down) or of one of its
    // RDMA ports (link_downed) within postFlapWindow, a path whose probe rate
    // stays more than postFlapFraction below its best in the
    // postFlapLookback before the flap.
    postFlapWindow: '6h',
    postFlapLookback: '1d',
    postFlapFraction: 0.3,
    // How long each condition must hold before it is named: the windows above
    // count the events, these wait out one noisy evaluation.
    linkFlapFor: '5m',
    preFecBerFor: '30m',
    pcieTransitionFor: '5m',
    aerCorrectableFor: '15m',
    postFlapFor: '1h',
    offloadDiffersFor: '30m',
  },

  local c = $._config,
  // Fabric NICs' offload states, with their node's fleet role (peers.libsonnet).
  local offloads = 'fabric_netdev_offload_enabled{%s, role="fabric"}' % c.selector,
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
      name: 'fabric-ladder.link_health',
      rules: [
        {
          // Carrier down transitions per interface over the flap window.
          record: 'instance_device:fabric_netdev_carrier_down:increase',
          expr: |||
            sum by (instance, device, role) (
              increase(fabric_netdev_carrier_transitions_total{%(selector)s, transition="down"}[%(linkFlapWindow)s])
            )
          ||| % c,
        },
        {
          // Pre-FEC bit error ratio: bits the PHY corrected over the bits the
          // line carried (speed x 8), from the first source the NIC has:
          // the kernel's driver-neutral FEC statistics (ETHTOOL_A_FEC_STAT_CORR_BITS),
          // the mlx5 phy counter (rx_corrected_bits_phy), the sum of the mlx5
          // per-lane phy counters (rx_err_lane_N_phy), and last the FEC
          // corrected codewords, a lower bound (each held at least one bit
          // error) for drivers that count codewords only (mlx5 RS-FEC).
          record: 'instance_device:fabric_netdev_pre_fec_ber:rate5m',
          expr: |||
            (
              sum by (instance, device) (rate(fabric_netdev_fec_corrected_bits_total{%(selector)s}[5m]))
              or sum by (instance, device) (rate(fabric_netdev_phy_corrected_bit_errors_total{%(selector)s}[5m]))
              or sum by (instance, device) (rate(fabric_netdev_phy_lane_bit_errors_total{%(selector)s}[5m]))
              or sum by (instance, device) (rate(fabric_netdev_fec_corrected_blocks_total{%(selector)s}[5m]))
            )
            / on (instance, device) (max by (instance, device) (fabric_netdev_speed_bytes{%(selector)s}) * 8)
          ||| % c,
        },
        {
          // Per lane, where the NIC counts per lane (FEC corrected bits per
          // lane, else the mlx5 lane counters): each lane carries speed / lanes.
          record: 'instance_device_lane:fabric_netdev_pre_fec_ber:rate5m',
          expr: |||
            (
              sum by (instance, device, lane) (rate(fabric_netdev_fec_lane_corrected_bits_total{%(selector)s}[5m]))
              or sum by (instance, device, lane) (rate(fabric_netdev_phy_lane_bit_errors_total{%(selector)s}[5m]))
            )
            / on (instance, device) group_left ()
              (
                max by (instance, device) (fabric_netdev_speed_bytes{%(selector)s}) * 8
                / count by (instance, device) (
                  max by (instance, device, lane) (fabric_netdev_fec_lane_corrected_bits_total{%(selector)s})
                  or max by (instance, device, lane) (fabric_netdev_phy_lane_bit_errors_total{%(selector)s})
                )
              )
          ||| % c,
        },
        {
          // The fleet's usual state of each offload on fabric NICs of the
          // nodes of each fleet role (the median of 0/1 is the majority;
          // node_role as in peers.libsonnet).
          record: 'offload:fabric_netdev_offload_enabled:fleet_median',
          expr: 'quantile by (offload, node_role) (0.5, %s)\n' % std.stripChars($.withNodeRole(offloads), '\n'),
        },
      ],
    }],
  },

  prometheusAlerts+:: {
    groups+: [{
      name: 'fabric-ladder.link_health_alerts',
      rules: [
        alert('FabricLinkFlapping', 'warning', |||
          instance_device:fabric_netdev_carrier_down:increase >= %(linkFlapCount)s
        ||| % c, 'An interface lost its carrier repeatedly.',
              '{{ $labels.device }} ({{ $labels.role }}) on {{ $labels.instance }} went down {{ $value | humanize }} times in the last %s.' % c.linkFlapWindow, c.linkFlapFor),
        alert('FabricRdmaLinkUnstable', 'warning', |||
          sum by (instance, device, port) (
            increase(fabric_rdma_port_link_downed_total{%(selector)s}[%(linkFlapWindow)s])
            + increase(fabric_rdma_port_link_error_recoveries_total{%(selector)s}[%(linkFlapWindow)s])
          ) >= %(linkFlapCount)s
        ||| % c, 'An RDMA port went down or recovered from link errors repeatedly.',
              'RDMA port {{ $labels.device }}/{{ $labels.port }} on {{ $labels.instance }} counted {{ $value | humanize }} link downs and error recoveries in the last %s.' % c.linkFlapWindow, c.linkFlapFor),
        alert('FabricPreFecBerAboveBudget', 'warning', |||
          instance_device:fabric_netdev_pre_fec_ber:rate5m > %(preFecBerBudget)s
        ||| % c, 'A link corrects more bit errors than its budget.',
              '{{ $labels.device }} on {{ $labels.instance }} runs at a pre-FEC bit error ratio of {{ $value | humanize }}, above the budget of %g: the cable or optic is losing margin.' % c.preFecBerBudget, c.preFecBerFor),
        alert('FabricPcieLinkUnstable', 'warning', |||
          sum by (instance, address) (
            increase(fabric_pcie_link_transitions_total{%(selector)s}[%(pcieTransitionWindow)s])
          ) >= %(pcieTransitionCount)s
        ||| % c, 'A PCIe link changed speed or width between scrapes.',
              'The PCIe link of {{ $labels.address }} on {{ $labels.instance }} changed speed or width {{ $value | humanize }} times in the last %s.' % c.pcieTransitionWindow, c.pcieTransitionFor),
        alert('FabricPcieAerCorrectableBurst', 'warning', |||
          sum by (instance, address) (
            rate(fabric_pcie_aer_errors_total{%(selector)s, severity="correctable"}[5m])
          ) > %(aerCorrectableRate)s
        ||| % c, 'A PCIe device reports a burst of correctable AER errors.',
              '{{ $labels.address }} on {{ $labels.instance }} reports {{ $value | humanize }} correctable AER errors per second.', c.aerCorrectableFor),
        // The flap: a carrier down on a fabric NIC, or a link down on an RDMA
        // port. An RDMA port counts unless its netdev (fabric_rdma_port_info)
        // is a storage or management NIC: an InfiniBand port often has no
        // configured netdev (ib0 is role "other", or there is none) yet is the
        // fabric the rdma probe runs on, while a storage NIC's RoCE port going
        // down says nothing about the fabric paths.
        alert('FabricRateLowAfterFlap', 'warning', |||
          max by (instance, target, direction, probe) (fabric_probe_throughput_bytes_per_second{%(selector)s, probe=~"rdma|tcp_multi"})
          < (1 - %(postFlapFraction)s) * max by (instance, target, direction, probe) (
              max_over_time(fabric_probe_throughput_bytes_per_second{%(selector)s, probe=~"rdma|tcp_multi"}[%(postFlapLookback)s] offset %(postFlapWindow)s))
          and on (instance) (
            group by (instance) (
              increase(fabric_netdev_carrier_transitions_total{%(selector)s, transition="down", role="fabric"}[%(postFlapWindow)s]) > 0)
            or group by (instance) (
              increase(fabric_rdma_port_link_downed_total{%(selector)s}[%(postFlapWindow)s]) > 0
              unless on (instance, device, port) (
                fabric_rdma_port_info{%(selector)s}
                and on (instance, netdev)
                  label_replace(fabric_netdev_role_info{%(selector)s, role=~"storage|management"}, "netdev", "$1", "device", "(.*)"))))
        ||| % c, 'A path stayed slow after its fabric link flapped.',
              'The {{ $labels.probe }} rate from {{ $labels.instance }} to {{ $labels.target }} ({{ $labels.direction }}) is {{ $value | humanize }}B/s, more than %g%% below its best before the fabric NIC or an RDMA port went down in the last %s: the link came back degraded (renegotiated speed, FEC, lost RDMA state).' % [100 * c.postFlapFraction, c.postFlapWindow], c.postFlapFor),
        alert('FabricOffloadDiffersFromPeers', 'warning', |||
          %(offloads)s
          != on (offload, node_role) group_left () offload:fabric_netdev_offload_enabled:fleet_median
          and on (offload, node_role) count by (offload, node_role) %(offloads)s >= %(peerMinNics)s
        ||| % (c { offloads: std.stripChars($.withNodeRole(offloads), '\n') }), 'A fabric NIC has an offload set unlike its peers.',
              '{{ $labels.offload }} is {{ if eq $value 1.0 }}on{{ else }}off{{ end }} on {{ $labels.device }} of {{ $labels.instance }}, unlike most fabric NICs of the fleet on {{ with $labels.node_role }}{{ . }} nodes{{ else }}nodes without a fleet role{{ end }}: a likely cause of receive backpressure on this node only.', c.offloadDiffersFor),
      ],
    }],
  },
}
