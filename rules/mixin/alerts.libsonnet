// One alert per bottleneck shape of docs/bottleneck-shapes.md (shape numbers in the
// comments), plus the instrument's own health. Causes are warning/info; the
// symptom "real transfers far below the proven ladder" is the only page.
local lq(keys) = std.join(',', [k + '=%q' for k in keys]);
local largs(keys) = std.join(' ', ['$labels.' + k for k in keys]);
// A humanised value of another series with the alert's own labels: `metric`
// gets {fixed, key="<the alert's label>"...}; qe takes a whole Go printf
// format (with %q per key) for an expression.
local qe(format, keys, fmt='humanize') =
  '{{ with printf `%s` %s | query }}{{ . | first | value | %s }}{{ else }}unknown{{ end }}'
  % [format, largs(keys), fmt];
local q(metric, keys, fmt='humanize', fixed='') =
  qe('%s{%s%s}' % [metric, if fixed == '' then '' else fixed + ',', lq(keys)], keys, fmt);
local node = '{{ with $labels.node }}{{ . }}{{ else }}{{ $labels.instance }}{{ end }}';

{
  local c = $._config,
  local alert(name, severity, expr, summary, description, for_=c.causeFor) = {
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
  local pair = ['instance', 'target', 'direction'],
  local uncontended = 'instance_target_direction:fabric_probe_uncontended_throughput_bytes_per_second:max',
  local line = q('instance:fabric_line_rate_bytes_per_second:max', ['instance']),

  prometheusRules+:: {
    groups+: [{
      name: 'fabric-ladder.helpers',
      rules: [{
        // TX pause frames of the fabric interface (standard stats, else the driver's).
        record: 'instance:fabric_tx_pause_frames:increase1h',
        expr: |||
          sum by (instance) (
            (
              increase(fabric_netdev_pause_frames_total{%(selector)s, direction="tx"}[1h])
              or increase(fabric_netdev_driver_pause_frames_total{%(selector)s, direction="tx"}[1h])
            )
            * on (instance, device) group_left () instance_device:fabric_fleet_interface:info
          )
        ||| % c,
      }, {
        // Probe results that did not share their path with other traffic: a
        // contended run measured a share, not the path. (cpu_bound runs stay:
        // the flag is also set whenever a host core was busy, which says
        // little about a path's result half below its peers'.)
        record: uncontended,
        expr: |||
          max by (instance, target, direction, probe) (
            fabric_probe_throughput_bytes_per_second{%(selector)s, probe=~"rdma|tcp_multi|tcp_single|storage_read|storage_write"}
            unless on (instance, probe, target, direction)
              (fabric_probe_verdict{%(selector)s, verdict="contended"} == 1)
          )
        ||| % c,
      }, {
        // Local line rate over the peer's (both from their own exporters).
        record: 'instance_target:fabric_path_speed_ratio:max',
        expr: |||
          max by (instance, target) (
            instance_peer:fabric_fleet_peer:info
            * on (instance) group_left () instance:fabric_line_rate_bytes_per_second:max
            / on (target) group_left ()
              label_replace(
                max by (node) (instance:fabric_line_rate_bytes_per_second:max),
                "target", "$1", "node", "(.+)"
              )
          )
        |||,
      }],
    }],
  },

  prometheusAlerts+:: {
    groups+: [
      {
        name: 'fabric-ladder.hardware',
        rules: [
          // Shape 14.
          alert('FabricPciePathBelowLineRate', 'warning', |||
            instance:fabric_pcie_ceiling_bytes_per_second:min
            < on (instance) group_left ()
              %(pcieLineRatio)s * instance:fabric_line_rate_bytes_per_second:max
          ||| % c, 'The fabric NIC PCIe path cannot carry its line rate.',
                'The PCIe path of %s\'s fabric NIC carries {{ $value | humanize }}B/s, below the NIC\'s line rate of %sB/s: every transfer through this NIC is capped there.' % [node, line]),
          alert('FabricNicSlotLimited', 'info', |||
            max by (instance, address, node) (
              (fabric_pcie_path_slot_limited{%(selector)s} == 1)
              * on (instance, address) group_left (node) instance_address:fabric_fleet_interface_pcie:info
              * on (instance, address) group_left () fabric_pcie_path_capable_bandwidth_bytes_per_second{%(selector)s}
            )
            < on (instance) group_left ()
              %(pcieLineRatio)s * instance:fabric_line_rate_bytes_per_second:max
          ||| % c, 'The fabric NIC sits in a slot narrower than the card.',
                'The fabric NIC of %s ({{ $labels.address }}) is in a slot or root port narrower than the card: even fully trained its path carries {{ $value | humanize }}B/s, below the line rate of %sB/s. Re-seating will not help; a CPU-direct x16 slot will.' % [node, line]),
          alert('FabricPcieLinkDowntrained', 'warning', |||
            max by (instance, address, node) (
              fabric_pcie_path_downtrained_hops{%(selector)s}
              * on (instance, address) group_left (node) instance_address:fabric_fleet_interface_pcie:info
            ) > 0
          ||| % c, 'A PCIe link on the fabric NIC path trained below what both ends support.',
                '{{ $value }} PCIe link(s) between %s\'s fabric NIC ({{ $labels.address }}) and its root port run below the speed or width both ends support; the path now carries %sB/s.' % [node, q('instance:fabric_pcie_ceiling_bytes_per_second:min', ['instance'])]),
          // Shape 13.
          alert('FabricMtuMismatch', 'warning', |||
            max by (instance, target) (
              instance_peer:fabric_fleet_peer:info
              * on (instance) group_left () instance:fabric_interface_mtu_bytes:max
            )
            != on (target) group_left ()
              label_replace(
                max by (node) (instance:fabric_interface_mtu_bytes:max),
                "target", "$1", "node", "(.+)"
              )
          |||, 'The fabric MTU differs between two peers.',
                'The fabric interface of {{ $labels.instance }} has MTU {{ $value }} but its peer {{ $labels.target }} has MTU %s: large frames are dropped or fragmented on this path.' % qe('max(instance:fabric_interface_mtu_bytes:max{node=%q})', ['target'], 'printf "%.0f"')),
          alert('FabricJumboFramesFailing', 'warning', |||
            max by (instance, target) (fabric_probe_jumbo_frames_pass{%(selector)s, probe="path"}) == 0
          ||| % c, 'Full-size jumbo frames do not reach a peer.',
                'A full-size frame with DF set from {{ $labels.instance }} did not reach {{ $labels.target }}: the path MTU is smaller than the fleet MTU somewhere (NIC, switch port or peer).'),
          alert('FabricRouteUnexpectedInterface', 'warning', |||
            max by (instance, target) (fabric_probe_egress_matches_expected{%(selector)s, probe="path"}) == 0
          ||| % c, 'The route to a peer leaves through the wrong interface.',
                'The kernel route from {{ $labels.instance }} to {{ $labels.target }} does not leave through the configured fabric interface: traffic to this peer runs at the speed of another NIC.'),
        ],
      },
      {
        name: 'fabric-ladder.host',
        rules: [
          // Shape 1.
          alert('FabricSocketBufferBelowBdp', 'warning', |||
            max by (instance, target) (fabric_probe_rtt_seconds{%(selector)s, probe=~"tcp_multi|tcp_single"})
            * on (instance) group_left (node) instance:fabric_line_rate_bytes_per_second:max
            * %(bdpFactor)s
            > on (instance) group_left ()
              min by (instance) (
                label_replace(fabric_sockbuf_tcp_rmem_bytes{%(selector)s, bound="max"}, "sysctl", "tcp_rmem", "", "")
                or label_replace(fabric_sockbuf_tcp_wmem_bytes{%(selector)s, bound="max"}, "sysctl", "tcp_wmem", "", "")
              )
          ||| % c, 'TCP socket buffers are smaller than the bandwidth-delay product.',
                'Line rate x RTT from %s to {{ $labels.target }} is {{ $value | humanize1024 }}B, but the smallest of tcp_rmem/tcp_wmem max is %sB: one TCP connection cannot keep the link full.' % [node, qe('min(label_replace(fabric_sockbuf_tcp_rmem_bytes{bound="max",instance=%q},"s","r","","") or label_replace(fabric_sockbuf_tcp_wmem_bytes{bound="max",instance=%q},"s","w","",""))', ['instance', 'instance'], 'humanize1024')]),
          // Shape 10.
          alert('FabricTransmitAsymmetry', 'warning', |||
            max by (instance) (instance_target_direction:fabric_probe_throughput_bytes_per_second:max{probe="tcp_multi", direction="send"})
            / max by (instance) (instance_target_direction:fabric_probe_throughput_bytes_per_second:max{probe="tcp_multi", direction="receive"})
            < %(txRxRatio)s
          ||| % c, 'A node transmits far slower than it receives.',
                '{{ $labels.instance }} sends at {{ $value | humanizePercentage }} of the rate it receives with the same multi-stream probe: the transmit side (CPU, IRQ placement) of this node is the limit.'),
          alert('FabricTxPauseAboveFleetMedian', 'warning', |||
            instance:fabric_tx_pause_frames:increase1h
            > %(pauseMedianFactor)s * scalar(quantile(0.5, instance:fabric_tx_pause_frames:increase1h))
            and instance:fabric_tx_pause_frames:increase1h > %(pauseMinPerHour)s
          ||| % c, 'A node sends far more pause frames than the rest of the fleet.',
                '{{ $labels.instance }} sent {{ $value | humanize }} TX pause frames in the last hour, {{ with query "quantile(0.5, instance:fabric_tx_pause_frames:increase1h)" }}{{ . | first | value | humanize }}{{ end }} at the fleet median: its receive path cannot drain the NIC.'),
          // Shape 15.
          alert('FabricReceiveBackpressure', 'warning', |||
            sum by (instance) (
              (
                increase(fabric_netdev_pause_frames_total{%(selector)s, direction="tx"}[%(backpressureWindow)s])
                or increase(fabric_netdev_driver_pause_frames_total{%(selector)s, direction="tx"}[%(backpressureWindow)s])
              )
              * on (instance, device) group_left () instance_device:fabric_fleet_interface:info
            ) > %(backpressurePauseMin)s
            and on (instance)
              sum by (instance) (increase(fabric_softnet_time_squeeze_total{%(selector)s}[%(backpressureWindow)s])) > 0
            and on (instance)
              sum by (instance) (increase(fabric_tcp_segments_retransmitted_total{%(selector)s}[%(backpressureWindow)s])) > %(backpressureRetransmitsMin)s
            and on (instance)
              sum by (instance) (
                (
                  increase(fabric_netdev_phy_crc_errors_total{%(selector)s}[%(backpressureWindow)s])
                  or increase(fabric_netdev_crc_errors_total{%(selector)s}[%(backpressureWindow)s])
                )
                * on (instance, device) group_left () instance_device:fabric_fleet_interface:info
              ) == 0
          ||| % c, 'The host receive path pushes back: TX pause, softnet squeeze and retransmits on a clean link.',
                '{{ $labels.instance }} sent {{ $value | humanize }} TX pause frames in %s while softnet ran out of budget and TCP retransmitted, with zero CRC errors on the fabric interface: the host, not the link, cannot drain received packets.' % c.backpressureWindow, for_='0m'),
        ],
      },
      {
        name: 'fabric-ladder.paths',
        rules: [
          // Shape 2.
          alert('FabricSingleStreamCeiling', 'info', |||
            instance_target_direction:fabric_probe_throughput_bytes_per_second:max{probe="tcp_single"}
            / on (instance, target, direction) group_left ()
              max without (probe) (instance_target_direction:fabric_probe_throughput_bytes_per_second:max{probe="tcp_multi"})
            < %(singleStreamRatio)s
          ||| % c, 'One TCP stream reaches only a fraction of the path.',
                'One TCP stream from {{ $labels.instance }} to {{ $labels.target }} ({{ $labels.direction }}) reaches {{ $value | humanizePercentage }} of the multi-stream ceiling (%sB/s): single-stream tools (scp, rsync, cp over NFS) are capped there.' % q('instance_target_direction:fabric_probe_throughput_bytes_per_second:max', pair, fixed='probe="tcp_multi"')),
          // Shape 3.
          alert('FabricProbeStreamLimited', 'info', |||
            fabric_probe_throughput_bytes_per_second{%(selector)s}
            * on (instance, probe, target, direction) group_left ()
              (fabric_probe_verdict{%(selector)s, verdict="stream_limited"} == 1)
          ||| % c, 'A probe result is streams x the per-stream ceiling, not the path.',
                'The {{ $labels.probe }} probe from {{ $labels.instance }} to {{ $labels.target }} measured {{ $value | humanize }}B/s with %s streams: that is streams x the per-stream ceiling, so the path was not saturated. Sweep the stream count before trusting it.' % q('fabric_probe_streams', ['instance', 'probe', 'target', 'direction'], 'printf "%.0f"')),
          // Shape 4.
          alert('FabricCopyPathGap', 'info', |||
            fabric_probe_copy_throughput_bytes_per_second{%(selector)s, probe=~"tcp_multi|tcp_single"}
            / fabric_probe_throughput_bytes_per_second{%(selector)s, probe=~"tcp_multi|tcp_single"}
            < %(copyRatio)s
          ||| % c, 'Userspace copies reach a fraction of the zero-copy rate.',
                'With read()/write() copies the {{ $labels.probe }} probe from {{ $labels.instance }} to {{ $labels.target }} reaches {{ $value | humanizePercentage }} of its sendfile rate: pipelines like dd | socat are CPU-capped on this path.'),
          // Shape 8.
          alert('FabricBulkTransferOverSsh', 'warning', |||
            sum by (instance, peer, application) (
              fabric_flows_goodput_bytes_per_second{%(selector)s, application=~"%(sshApplications)s"}
            )
            * on (instance, peer) group_left (target) instance_peer:fabric_fleet_peer:info
            > %(transferMinBytesPerSecond)s
          ||| % c, 'Bulk data moves over SSH on the fabric.',
                '{{ $labels.instance }} moves {{ $value | humanize }}B/s of bulk data over {{ $labels.application }} with {{ $labels.target }}; SSH framing caps one stream near 2 GB/s while this path proved %sB/s with TCP.' % qe('max(instance_target_direction:fabric_probe_throughput_bytes_per_second:max{probe="tcp_multi",instance=%q,target=%q})', ['instance', 'target'])),
          // Shapes 8 and 9 as the symptom: the page.
          alert('FabricTransfersFarBelowLadder', 'critical', |||
            (
              instance_target_direction:fabric_transfers_bytes_per_second:sum
              > %(transferMinBytesPerSecond)s
            )
            / on (instance, target, direction) group_left ()
              max without (probe) (instance_target_direction:fabric_probe_throughput_bytes_per_second:max{probe="tcp_multi"})
            < %(transferCriticalRatio)s
          ||| % c, 'Real transfers run far below the ceiling the fabric proved.',
                'Real bulk transfers from {{ $labels.instance }} to {{ $labels.target }} ({{ $labels.direction }}) move %sB/s, {{ $value | humanizePercentage }} of the %sB/s the multi-stream TCP probe proved on the same path: the applications, not the fabric, are the limit.' % [q('instance_target_direction:fabric_transfers_bytes_per_second:sum', pair), q('instance_target_direction:fabric_probe_throughput_bytes_per_second:max', pair, fixed='probe="tcp_multi"')], for_='30m'),
          // Shape 9.
          alert('FabricApplicationProtocolGap', 'warning', |||
            (
              max by (instance, peer, application) (
                fabric_flows_best_flow_goodput_bytes_per_second{%(selector)s, limiter="application", application!~"%(sshApplications)s"}
              ) > %(transferMinBytesPerSecond)s
            )
            * on (instance, peer) group_left (target) instance_peer:fabric_fleet_peer:info
            / on (instance, target) group_left ()
              max by (instance, target) (
                instance_target_direction:fabric_probe_throughput_bytes_per_second:max{probe="tcp_single", direction=~"send|both"}
              )
            < %(appSingleStreamRatio)s
          ||| % c, 'An application moves far less per stream than raw TCP on the same path.',
                'The fastest {{ $labels.application }} flow from {{ $labels.instance }} to {{ $labels.target }} reaches {{ $value | humanizePercentage }} of a raw single TCP stream on the same path, limited by the application itself: the protocol, not the network, is the ceiling.'),
          // Shape 11.
          alert('FabricRetransmitStormSpeedMismatch', 'info', |||
            max by (instance, target) (
              fabric_probe_retransmits{%(selector)s, probe=~"tcp_multi|tcp_single", direction=~"send|both"}
              / fabric_probe_window_seconds{%(selector)s, probe=~"tcp_multi|tcp_single", direction=~"send|both"}
            ) > %(retransmitsPerSecond)s
            and on (instance, target)
              instance_target:fabric_path_speed_ratio:max > %(speedMismatchRatio)s
          ||| % c, 'Retransmit storm where a faster sender meets a slower receiver.',
                '{{ $labels.instance }} retransmits {{ $value | humanize }} segments/s to {{ $labels.target }}, whose line rate is %s times slower: expected when a fast sender overruns a slow receiver; it shares fairly, and flow control or ECN are the remedy if it hurts.' % q('instance_target:fabric_path_speed_ratio:max', ['instance', 'target'], 'printf "%.3g"'), for_='0m'),
          // One path far below its peers (a shaper or policer, a degraded port,
          // a wrong route): its multi-stream TCP result against the fleet's
          // median for the same direction, uncontended results only.
          alert('FabricPathFarBelowPeers', 'warning', |||
            max without (probe) (%(tcp)s)
            < on (direction) group_left ()
              %(pathFleetRatio)s * quantile by (direction) (0.5, %(tcp)s)
            and on (direction)
              count by (direction) (%(tcp)s) >= %(pathFleetMinPaths)s
          ||| % (c { tcp: uncontended + '{probe="tcp_multi"}' }), 'One path moves far less than the same probe on the rest of the fleet.',
                'Data %s moves at {{ $value | humanize }}B/s with the multi-stream TCP probe ({{ $labels.instance }}\'s {{ $labels.direction }} result), under %g%% of the fleet median of %sB/s over the %s paths probed in that direction: this path, not the fleet, is slow (a shaper or policer, a degraded link or switch port, a wrong route, or the sender\'s transmit side).' % [
                  '{{ if eq $labels.direction "receive" }}from {{ $labels.target }} to {{ $labels.instance }}{{ else if eq $labels.direction "send" }}from {{ $labels.instance }} to {{ $labels.target }}{{ else }}between {{ $labels.instance }} and {{ $labels.target }}{{ end }}',
                  100 * c.pathFleetRatio,
                  qe('quantile(0.5, %s{probe="tcp_multi",direction=%%q})' % uncontended, ['direction']),
                  qe('count(%s{probe="tcp_multi",direction=%%q})' % uncontended, ['direction'], 'printf "%.0f"'),
                ]),
        ],
      },
      {
        name: 'fabric-ladder.storage',
        rules: [
          // Shape 5.
          alert('FabricStorageBufferedReadSlow', 'info', |||
            fabric_probe_buffered_throughput_bytes_per_second{%(selector)s, probe="storage_read"}
            / fabric_probe_throughput_bytes_per_second{%(selector)s, probe="storage_read"}
            < %(bufferedRatio)s
          ||| % c, 'Buffered reads reach a fraction of direct I/O.',
                'Buffered (page-cache) reads of {{ $labels.target }} on {{ $labels.instance }} reach {{ $value | humanizePercentage }} of direct I/O with the same jobs: cp/rsync-style readers are capped by the page cache.'),
          // Shape 6.
          alert('FabricStorageSingleFileContention', 'info', |||
            fabric_probe_single_file_throughput_bytes_per_second{%(selector)s, probe="storage_read"}
            / fabric_probe_throughput_bytes_per_second{%(selector)s, probe="storage_read"}
            < %(singleFileRatio)s
          ||| % c, 'Parallel reads of one file are far slower than of many files.',
                'Parallel reads of one file in {{ $labels.target }} on {{ $labels.instance }} reach {{ $value | humanizePercentage }} of the same parallelism over separate files: parallelise across files.'),
          // Shape 7.
          alert('FabricStorageWriteFarBelowRead', 'warning', |||
            max by (instance, target) (fabric_probe_throughput_bytes_per_second{%(selector)s, probe="storage_write"})
            / max by (instance, target) (fabric_probe_throughput_bytes_per_second{%(selector)s, probe="storage_read"})
            < %(writeReadRatio)s
          ||| % c, 'A filesystem writes far slower than it reads.',
                'Writes to {{ $labels.target }} on {{ $labels.instance }} reach {{ $value | humanizePercentage }} of its reads (%sB/s): filesystem settings (compression, recordsize, sync) are the limit for data received here.' % qe('max(fabric_probe_throughput_bytes_per_second{probe="storage_read",instance=%q,target=%q})', ['instance', 'target'])),
          alert('FabricStorageWriteBelowFleet', 'warning', |||
            max by (instance, target) (fabric_probe_throughput_bytes_per_second{%(selector)s, probe="storage_write"})
            < %(writeFleetRatio)s * scalar(quantile(0.5,
                max by (instance, target) (fabric_probe_throughput_bytes_per_second{%(selector)s, probe="storage_write"})
              ))
          ||| % c, 'A node writes far slower than the fleet.',
                'Writes to {{ $labels.target }} on {{ $labels.instance }} reach {{ $value | humanize }}B/s, against a fleet median of %sB/s: this is the weakest node to receive bulk data.' % '{{ with query `quantile(0.5, max by (instance, target) (fabric_probe_throughput_bytes_per_second{probe="storage_write"}))` }}{{ . | first | value | humanize }}{{ end }}'),
          // Shape 12.
          alert('FabricStorageLatencyBound', 'info', |||
            fabric_probe_throughput_bytes_per_second{%(selector)s, probe=~"storage_read|storage_write"}
            * on (instance, probe, target, direction) group_left ()
              (fabric_probe_verdict{%(selector)s, verdict="latency_bound"} == 1)
          ||| % c, 'Storage throughput is in-flight I/O divided by latency.',
                'The {{ $labels.probe }} probe of {{ $labels.target }} on {{ $labels.instance }} moved {{ $value | humanize }}B/s with a median latency of %ss: throughput = in-flight x block / latency, so more jobs or a deeper queue raise it, the device does not.' % q('fabric_probe_latency_p50_seconds', ['instance', 'probe', 'target', 'direction'])),
        ],
      },
      {
        name: 'fabric-ladder.instrument',
        rules: [
          alert('FabricProbeStale', 'warning', |||
            (time() - fabric_probe_last_run_timestamp_seconds{%(selector)s} > %(probeStaleSeconds)s)
            and fabric_probe_last_run_timestamp_seconds{%(selector)s} > 0
          ||| % c, 'A ladder rung has not been measured recently.',
                'The {{ $labels.probe }} probe from {{ $labels.instance }} to {{ $labels.target }} last ran {{ $value | humanizeDuration }} ago: this rung of the ladder is stale.', for_='0m'),
          alert('FabricProbeNeverRan', 'info', |||
            fabric_probe_last_run_timestamp_seconds{%(selector)s} == 0
          ||| % c, 'A scheduled probe has never run.',
                'The {{ $labels.probe }} probe from {{ $labels.instance }} to {{ $labels.target }} is scheduled but has not run once: this rung of the ladder is missing.', for_=c.probeNeverRanFor),
          alert('FabricProbeFailing', 'warning', |||
            fabric_probe_failure_info{%(selector)s}
          ||| % c, 'A probe fails.',
                'The last run of the {{ $labels.probe }} probe from {{ $labels.instance }} to {{ $labels.target }} failed ({{ $labels.reason }}): this rung of the ladder is not measured.', for_=c.probeFailingFor),
          alert('FabricProbeHarnessLimited', 'info', |||
            fabric_probe_throughput_bytes_per_second{%(selector)s}
            * on (instance, probe, target, direction) group_left (verdict)
              (fabric_probe_verdict{%(selector)s, verdict=~"cpu_bound|contended"} == 1)
          ||| % c, 'A probe result measures the harness, not the fabric.',
                'The {{ $labels.probe }} probe from {{ $labels.instance }} to {{ $labels.target }} measured {{ $value | humanize }}B/s but flagged itself {{ $labels.verdict }}: the number is a harness or shared-path limit, not a fabric ceiling.', for_='0m'),
          alert('FabricCollectorFailing', 'warning', |||
            fabric_scrape_collector_success{%(selector)s} == 0
          ||| % c, 'An exporter collector fails.',
                'The {{ $labels.collector }} collector of {{ $labels.instance }} has failed every scrape for %s: its metrics are missing (the exporter log says why).' % c.collectorFailingFor, for_=c.collectorFailingFor),
          alert('FabricExporterDown', 'warning', |||
            up{%(selector)s} == 0
          ||| % c, 'A fabric exporter cannot be scraped.',
                'Prometheus could not scrape the fabric exporter on {{ $labels.instance }} for %s: its node has no ladder.' % c.exporterDownFor, for_=c.exporterDownFor),
        ],
      },
    ],
  },
}
