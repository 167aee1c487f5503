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
// The MTU the fleet config declares for a node (fabric_fleet_node_info's expected_mtu),
// selected by `key` equal to the alert's label `label`; "none" where it declares none.
local configuredMtu(key, label=key) =
  '{{ with printf `max by (expected_mtu) (fabric_fleet_node_info{%s=%%q})` $labels.%s | query }}{{ with . | first | label "expected_mtu" }}{{ . }}{{ else }}none{{ end }}{{ else }}unknown{{ end }}' % [key, label];
local node = '{{ with $labels.node }}{{ . }}{{ else }}{{ $labels.instance }}{{ end }}';
// The largest of a value over the tcp_multi records a node takes part in: its own, and its
// peers' records naming it as their target (qe keys: instance, instance).
local streamLimitedOf(metric, probe) =
  'max(%(m)s{probe="%(p)s",instance=%%q} or (%(m)s{probe="%(p)s"} and on (target) label_replace(fabric_fleet_node_info{instance=%%q}, "target", "$1", "node", "(.+)")))'
  % { m: metric, p: probe };
// The data flow a (instance, target, direction) result measures, in words: a receive result
// is data from the target to the instance.
local flow = '{{ if eq $labels.direction "receive" }}from {{ $labels.target }} to {{ $labels.instance }}{{ else if eq $labels.direction "send" }}from {{ $labels.instance }} to {{ $labels.target }}{{ else }}between {{ $labels.instance }} and {{ $labels.target }}{{ end }}';

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

  local clean = 'instance_target_direction:fabric_probe_clean_throughput_bytes_per_second:max',
  // What real transfers to a peer must move before they are judged (relative to the path).
  local floor = 'instance_target:fabric_transfers_floor_bytes_per_second:max',
  local pathFraction = 'instance_target_direction:fabric_probe_path_fraction:max',
  local sent = 'instance_target_application:fabric_flows_sent_goodput_bytes_per_second:sum',
  local sentFlows = 'instance_target_application:fabric_flows_sent_bulk_flows:sum',
  // Real transfers over _config.transferWindow, from the flows collector's counters.
  local sentRate = 'instance_target_application:fabric_flows_sent_bytes:rate',
  local movedRate = 'instance_target_direction:fabric_transfers_bytes:rate',
  local sentStreams = 'instance_target_application:fabric_flows_sent_bulk_flows:max',
  local appShare = 'instance_target_application:fabric_flows_application_limited:ratio',
  local notReadingShare = 'instance_target_application:fabric_flows_receiver_not_reading:ratio',
  local heldShare = 'instance_target_application:fabric_flows_application_held:ratio',
  local atStreams = 'instance_target_application:fabric_probe_tcp_at_streams_bytes_per_second:min',
  // What a transfer moved over the window, and what raw TCP carries with as many streams.
  local moved = qe('%s{instance=%%q,target=%%q,application=%%q}' % sentRate, ['instance', 'target', 'application']),
  local rawTcp = qe('%s{instance=%%q,target=%%q,application=%%q}' % atStreams, ['instance', 'target', 'application']),
  local streams = qe('%s{instance=%%q,target=%%q,application=%%q}' % sentStreams, ['instance', 'target', 'application'], 'printf "%.0f"'),
  local latencyBound = 'instance_target_rung:fabric_storage_latency_bound:max',
  local rungs = 'probe=~"rdma|tcp_multi|tcp_single|storage_read|storage_write"',
  local scheduled = 'probe=~"rdma|tcp_multi|tcp_single|storage_read|storage_write|path"',

  prometheusRules+:: {
    groups+: [{
      name: 'fabric-ladder.helpers',
      rules: [{
        // TX pause frames of the fabric interface, each interface counted once: the standard
        // stats, else the driver's. The standard series carries the interface's `role`, the
        // driver's does not, so the fallback matches on the labels both have (a plain `or`
        // kept both and counted every frame twice).
        record: 'instance:fabric_tx_pause_frames:increase1h',
        expr: |||
          sum by (instance) (
            (
              increase(fabric_netdev_pause_frames_total{%(selector)s, direction="tx"}[1h])
              or on (instance, device)
                increase(fabric_netdev_driver_pause_frames_total{%(selector)s, direction="tx"}[1h])
            )
            * on (instance, device) group_left () instance_device:fabric_fleet_interface:info
          )
        ||| % c,
      }, {
        // Probe results that did not share their path with other traffic: a
        // contended run measured a share, not the path. cpu_bound runs stay: what
        // the node could do is what regressed when a node became CPU-bound. The exporter
        // keeps the last uncontended result of each rung across contended runs
        // (fabric_probe_uncontended_*), judged while younger than probeEvidenceMaxAgeSeconds;
        // an exporter without those series: its latest result unless contended.
        record: uncontended,
        expr: |||
          max by (instance, target, direction, probe) (
            (
              fabric_probe_uncontended_throughput_bytes_per_second{%(selector)s, %(rungs)s}
              and on (instance, probe, target, direction)
                (time() - fabric_probe_uncontended_timestamp_seconds{%(selector)s} < %(probeEvidenceMaxAgeSeconds)s)
            )
            or on (instance, probe, target, direction)
            (
              fabric_probe_throughput_bytes_per_second{%(selector)s, %(rungs)s}
              unless on (instance, probe, target, direction)
                (fabric_probe_verdict{%(selector)s, verdict="contended"} == 1)
            )
          )
        ||| % (c { rungs: rungs }),
      }, {
        // Probe results no harness limit touched (neither cpu_bound nor contended): the only
        // ones a cause alert may judge a path by. Kept across contended and CPU-bound runs
        // like the uncontended ones (fabric_probe_clean_*).
        record: clean,
        expr: |||
          max by (instance, target, direction, probe) (
            (
              fabric_probe_clean_throughput_bytes_per_second{%(selector)s, %(rungs)s}
              and on (instance, probe, target, direction)
                (time() - fabric_probe_clean_timestamp_seconds{%(selector)s} < %(probeEvidenceMaxAgeSeconds)s)
            )
            or on (instance, probe, target, direction)
            (
              fabric_probe_throughput_bytes_per_second{%(selector)s, %(rungs)s}
              unless on (instance, probe, target, direction)
                (fabric_probe_verdict{%(selector)s, verdict=~"cpu_bound|contended"} == 1)
            )
          )
        ||| % (c { rungs: rungs }),
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
      }, {
        // The slower end's line rate: what a path can carry at most.
        record: 'instance_target:fabric_path_line_rate_bytes_per_second:min',
        expr: |||
          min by (instance, target) (
            label_replace(
              instance_peer:fabric_fleet_peer:info
              * on (instance) group_left () instance:fabric_line_rate_bytes_per_second:max,
              "end", "local", "", ""
            )
            or
            label_replace(
              instance_peer:fabric_fleet_peer:info * 0
              + on (target) group_left ()
                label_replace(
                  max by (node) (instance:fabric_line_rate_bytes_per_second:max),
                  "target", "$1", "node", "(.+)"
                ),
              "end", "peer", "", ""
            )
          )
        |||,
      }, {
        // Each clean multi-stream result as a fraction of what the path can carry: its line
        // rate (the slower end's), or where a line rate is unknown (veth, many virtio NICs)
        // the best clean result in that direction. Paths of different speeds compare fairly.
        record: pathFraction,
        expr: |||
          (
            %(clean)s{probe="tcp_multi"}
            / on (instance, target) group_left () instance_target:fabric_path_line_rate_bytes_per_second:min
          )
          or
          (
            %(clean)s{probe="tcp_multi"}
            / on (direction) group_left () max by (direction) (%(clean)s{probe="tcp_multi"})
          )
        ||| % { clean: clean },
      }, {
        // The least real transfers to a peer must move before the transfer alerts and the page
        // judge them: transferMinPathRatio of what the path can carry (the slower end's line
        // rate, else the best uncontended multi-stream result), and transferMinBytesPerSecond.
        record: floor,
        expr: |||
          clamp_min(
            %(transferMinPathRatio)s * (
              instance_target:fabric_path_line_rate_bytes_per_second:min
              or max by (instance, target) (%(u)s{probe="tcp_multi"})
            ),
            %(transferMinBytesPerSecond)s
          )
        ||| % (c { u: uncontended }),
      }, {
        // Real bulk data this node sends to each fleet peer, per application (the probe's own
        // sockets left out: they are the ladder, not a transfer).
        record: sent,
        expr: |||
          sum by (instance, target, application) (
            fabric_flows_goodput_bytes_per_second{%(selector)s, limiter!="remote_sender", application!="fabric_probe"}
            * on (instance, peer) group_left (target) instance_peer:fabric_fleet_peer:info
          )
        ||| % c,
      }, {
        record: sentFlows,
        expr: |||
          sum by (instance, target, application) (
            fabric_flows_bulk_flows{%(selector)s, limiter!="remote_sender", application!="fabric_probe"}
            * on (instance, peer) group_left (target) instance_peer:fabric_fleet_peer:info
          )
        ||| % c,
      }, {
        // Real transfers per peer and direction over the window, from the flows collector's
        // counters (every connection from its first byte, one series across connections): the
        // page judges these, so a transfer made of many connections (scp per file, an rsync per
        // directory) is one transfer over time and its gaps between connections do not reset
        // the page's `for:`. The probe's own sockets are the ladder, not a transfer.
        record: movedRate,
        expr: |||
          sum by (instance, target, direction) (
            rate(fabric_flows_transferred_bytes_total{%(selector)s, application!="fabric_probe"}[%(transferWindow)s])
            * on (instance, peer) group_left (target) instance_peer:fabric_fleet_peer:info
          )
        ||| % c,
      }, {
        // Bytes each application sent to each fleet peer over the window: every connection
        // counted from its first byte, one series across connections (flows_collector.cc).
        record: sentRate,
        expr: |||
          sum by (instance, target, application) (
            rate(fabric_flows_transferred_bytes_total{%(selector)s, direction="send", application!="fabric_probe"}[%(transferWindow)s])
            * on (instance, peer) group_left (target) instance_peer:fabric_fleet_peer:info
          )
        ||| % c,
      }, {
        // The most bulk flows a transfer ran at once over the window: 1 all through is a
        // single-stream transfer.
        record: sentStreams,
        expr: 'max_over_time(%s[%s])' % [sentFlows, c.transferWindow],
      }, {
        // The share of the sending flows' time the application itself held them: not giving
        // TCP data, or its receiver not reading (a window the receiver had opened wide, now
        // closed). A limiter that alternates between scrapes is judged by its share of time.
        record: appShare,
        expr: |||
          sum by (instance, target, application) (
            rate(fabric_flows_limited_seconds_total{%(selector)s, limiter="application", application!="fabric_probe"}[%(transferWindow)s])
            * on (instance, peer) group_left (target) instance_peer:fabric_fleet_peer:info
          )
          / sum by (instance, target, application) (
            rate(fabric_flows_limited_seconds_total{%(selector)s, limiter!~"remote_sender|not_reading", application!="fabric_probe"}[%(transferWindow)s])
            * on (instance, peer) group_left (target) instance_peer:fabric_fleet_peer:info
          )
        ||| % c,
      }, {
        // The receiving end's own evidence, put on the sender's path (instance of the sender,
        // target the receiver): the share of its received flows' time its process left the
        // receive queue half full or more (limiter="not_reading"). A receiver frozen while it
        // holds its socket (a CPU-starved host) also holds back its ACKs, which the sender
        // counts as a slow network; only the receiving end can tell.
        record: notReadingShare,
        expr: |||
          max by (instance, target, application) (
            label_replace(
              label_replace(
                sum by (instance, target, application) (
                  rate(fabric_flows_limited_seconds_total{%(selector)s, limiter="not_reading", application!="fabric_probe"}[%(transferWindow)s])
                  * on (instance, peer) group_left (target) instance_peer:fabric_fleet_peer:info
                )
                / sum by (instance, target, application) (
                  rate(fabric_flows_limited_seconds_total{%(selector)s, limiter=~"remote_sender|not_reading", application!="fabric_probe"}[%(transferWindow)s])
                  * on (instance, peer) group_left (target) instance_peer:fabric_fleet_peer:info
                )
                * on (instance) group_left (node) max by (instance, node) (fabric_fleet_node_info{%(selector)s}),
                "sender", "$1", "target", "(.+)"
              ),
              "target", "$1", "node", "(.+)"
            )
            * on (sender) group_left (instance)
              label_replace(
                max by (instance, node) (fabric_fleet_node_info{%(selector)s}),
                "sender", "$1", "node", "(.+)"
              )
          )
        ||| % c,
      }, {
        // What FabricApplicationProtocolGap judges: the larger of the sender's own share and
        // its receiver's.
        record: heldShare,
        // (`or` keeps a series of the right only where the left has none: the `end` label
        // keeps both, max drops it).
        expr: |||
          max by (instance, target, application) (
            label_replace(%s, "end", "sender", "", "")
            or label_replace(%s, "end", "receiver", "", "")
          )
        ||| % [appShare, notReadingShare],
      }, {
        // Raw TCP with as many streams as a transfer runs: its stream count x the
        // single-stream rung, at most the N-stream rung, on the same path.
        record: atStreams,
        expr: |||
          min by (instance, target, application) (
            label_replace(
              %(streams)s
              * on (instance, target) group_left ()
                max by (instance, target) (%(u)s{probe="tcp_single", direction="send"}),
              "bound", "streams", "", ""
            )
            or
            label_replace(
              %(streams)s * 0
              + on (instance, target) group_left ()
                max by (instance, target) (%(u)s{probe="tcp_multi", direction="send"}),
              "bound", "rung", "", ""
            )
          )
        ||| % { streams: sentStreams, u: uncontended },
      }, {
        // Shape 12's evidence per storage directory and rung (rung: the loaded run,
        // storage_read or storage_write): a depth-1 run slow per I/O (latency, not bandwidth)
        // while the loaded run moved several times more. Per rung, so an alert about a
        // latency-bound write never quotes the read's numbers.
        record: latencyBound,
        expr: |||
          max by (instance, target, rung) (
            label_replace(
              fabric_probe_latency_p50_seconds{%(selector)s, probe=~"storage_(read|write)_depth1"}
              >= %(storageLatencySeconds)s,
              "rung", "$1", "probe", "(storage_(?:read|write))_depth1"
            )
            and on (instance, target, rung)
              label_replace(
                fabric_probe_throughput_bytes_per_second{%(selector)s, probe=~"storage_(read|write)"},
                "rung", "$1", "probe", "(.+)"
              )
              >= on (instance, target, rung) group_left ()
                %(storageLatencyGain)s * label_replace(
                  fabric_probe_throughput_bytes_per_second{%(selector)s, probe=~"storage_(read|write)_depth1"},
                  "rung", "$1", "probe", "(storage_(?:read|write))_depth1"
                )
          ) * 0 + 1
        ||| % c,
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
          // Shape 13. Two ends with different MTUs, unless both run the MTU the fleet config
          // declares for them (a tier that runs another MTU by design, e.g. 1500-byte storage
          // nodes: the path probe then checks the smaller MTU end to end). An end without a
          // configured MTU, or off it, makes the difference a fault.
          alert('FabricMtuMismatch', 'warning', |||
            (
              max by (instance, target) (
                instance_peer:fabric_fleet_peer:info
                * on (instance) group_left () instance:fabric_interface_mtu_bytes:max
              )
              != on (target) group_left ()
                label_replace(
                  max by (node) (instance:fabric_interface_mtu_bytes:max),
                  "target", "$1", "node", "(.+)"
                )
            )
            unless on (instance, target) (
              max by (instance, target) (
                instance_peer:fabric_fleet_peer:info
                * on (instance) group_left () group by (instance) (instance:fabric_interface_mtu_as_configured:info)
              )
              and on (target)
                label_replace(
                  group by (node) (instance:fabric_interface_mtu_as_configured:info),
                  "target", "$1", "node", "(.+)"
                )
            )
          |||, 'The fabric MTU differs between two peers.',
                'The fabric interface of {{ $labels.instance }} has MTU {{ $value }} but its peer {{ $labels.target }} has MTU %s, and the fleet config does not declare that difference (configured: %s on {{ $labels.instance }}, %s on {{ $labels.target }}): large frames are dropped or fragmented on this path.' % [
                  qe('max(instance:fabric_interface_mtu_bytes:max{node=%q})', ['target'], 'printf "%.0f"'),
                  configuredMtu('instance'),
                  configuredMtu('node', 'target'),
                ]),
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
          // Shape 1: the bandwidth-delay product against every buffer cap. tcp_rmem/tcp_wmem
          // bound autotuning; net.core.rmem_max/wmem_max bound what an application asks for
          // with SO_RCVBUF/SO_SNDBUF (the field's case: tcp_* tuned, core.* at 208 KB). The RTT is
          // TCP's minimum: the smoothed RTT includes the queue the probe builds itself, many
          // times the path's on a shaped or busy link.
          alert('FabricSocketBufferBelowBdp', 'warning', |||
            max by (instance) (
              max by (instance, target) (fabric_probe_min_rtt_seconds{%(selector)s, probe=~"tcp_multi|tcp_single"})
              * on (instance) group_left () instance:fabric_line_rate_bytes_per_second:max
            ) * %(bdpFactor)s
            > on (instance)
              min by (instance) (instance_sysctl:fabric_socket_buffer_max_bytes:max)
          ||| % c, 'Socket buffers are smaller than the bandwidth-delay product.',
                // Every maximum below the product, by name (fixing one of two leaves the other).
                'Line rate x RTT on %s is {{ $value | humanize1024 }}B, but %s: a TCP connection whose buffer is capped below the bandwidth-delay product cannot keep the link full (net.core.rmem_max/wmem_max cap applications that size their own buffers, tcp_rmem/tcp_wmem cap autotuning).' % [node, '{{ $bdp := $value }}{{ $sep := "" }}{{ range printf `instance_sysctl:fabric_socket_buffer_max_bytes:max{instance=%q}` $labels.instance | query | sortByLabel "sysctl" }}{{ if lt .Value $bdp }}{{ $sep }}{{ .Labels.sysctl }} is {{ .Value | humanize1024 }}B{{ $sep = ", " }}{{ end }}{{ end }}']),
          // Shape 10: the node's best clean-or-CPU-bound send over txRxWindow against its best
          // receive, with the same probe. Contended runs measured a share; paths whose route
          // leaves through the wrong interface (shape 13) are left out: their send is the
          // other NIC's speed. Every send of the window must be slow: a run that shared the
          // host or the path below what its self-checks flag is one run, not the node.
          alert('FabricTransmitAsymmetry', 'warning', |||
            max by (instance) (
              max_over_time(%(u)s{probe="tcp_multi", direction="send"}[%(txRxWindow)s])
              unless on (instance, target)
                (max by (instance, target) (fabric_probe_egress_matches_expected{%(selector)s, probe="path"}) == 0)
            )
            / max by (instance) (%(clean)s{probe="tcp_multi", direction="receive"})
            < %(txRxRatio)s
          ||| % (c { u: uncontended, clean: clean }), 'A node transmits far slower than it receives.',
                '{{ $labels.instance }} sends at {{ $value | humanizePercentage }} of the rate it receives with the same multi-stream probe (%s streams), at best over the last %s: its transmit side (CPU clock, IRQ placement) is the limit.%s' % [
                  qe('max(fabric_probe_streams{probe="tcp_multi",direction="send",instance=%q})', ['instance'], 'printf "%.0f"'),
                  c.txRxWindow,
                  '{{ with printf `max(fabric_probe_throughput_bytes_per_second{probe="tcp_multi_sweep",direction="send",instance=%q})` $labels.instance | query }} The stream sweep reached {{ . | first | value | humanize }}B/s with more streams: transmit from this node with more streams, or move it to faster cores.{{ end }}',
                ]),
          alert('FabricTxPauseAboveFleetMedian', 'warning', |||
            instance:fabric_tx_pause_frames:increase1h
            > %(pauseMedianFactor)s * scalar(quantile(0.5, instance:fabric_tx_pause_frames:increase1h))
            and instance:fabric_tx_pause_frames:increase1h > %(pauseMinPerHour)s
          ||| % c, 'A node sends far more pause frames than the rest of the fleet.',
                '{{ $labels.instance }} sent {{ $value | humanize }} TX pause frames in the last hour, {{ with query "quantile(0.5, instance:fabric_tx_pause_frames:increase1h)" }}{{ . | first | value | humanize }}{{ end }} at the fleet median: its receive path cannot drain the NIC.'),
          // Shape 15: pause frames sent, softnet squeezes and retransmits of the traffic coming
          // in (counted by its senders: this node's receive-direction probe records carry the
          // responder's sender-side TCP_INFO, and the peers' send records to it), with a
          // clean PHY.
          alert('FabricReceiveBackpressure', 'warning', |||
            sum by (instance) (
              (
                increase(fabric_netdev_pause_frames_total{%(selector)s, direction="tx"}[%(backpressureWindow)s])
                or on (instance, device)
                  increase(fabric_netdev_driver_pause_frames_total{%(selector)s, direction="tx"}[%(backpressureWindow)s])
              )
              * on (instance, device) group_left () instance_device:fabric_fleet_interface:info
            ) > %(backpressurePauseMin)s
            and on (instance)
              sum by (instance) (increase(fabric_softnet_time_squeeze_total{%(selector)s}[%(backpressureWindow)s])) > 0
            and on (instance)
              (
                max by (instance) (
                  fabric_probe_retransmits{%(selector)s, probe="tcp_multi", direction="receive"}
                  / fabric_probe_window_seconds{%(selector)s, probe="tcp_multi", direction="receive"}
                )
                or
                max by (instance) (
                  label_replace(
                    max by (target) (
                      fabric_probe_retransmits{%(selector)s, probe="tcp_multi", direction="send"}
                      / fabric_probe_window_seconds{%(selector)s, probe="tcp_multi", direction="send"}
                    ),
                    "node", "$1", "target", "(.+)"
                  )
                  * on (node) group_left (instance) max by (instance, node) (fabric_fleet_node_info{%(selector)s})
                )
              ) > %(backpressureRetransmitsPerSecond)s
            and on (instance)
              sum by (instance) (
                (
                  increase(fabric_netdev_phy_crc_errors_total{%(selector)s}[%(backpressureWindow)s])
                  or on (instance, device)
                    increase(fabric_netdev_crc_errors_total{%(selector)s}[%(backpressureWindow)s])
                )
                * on (instance, device) group_left () instance_device:fabric_fleet_interface:info
              ) == 0
          ||| % c, 'The host receive path pushes back: TX pause, softnet squeeze and inbound retransmits on a clean link.',
                '{{ $labels.instance }} sent {{ $value | humanize }} TX pause frames in %s while softnet ran out of budget and the traffic sent to it was retransmitted, with zero CRC errors on the fabric interface: the host, not the link, cannot drain received packets. Check first where its receive path differs from its peers (IRQ and queue placement, NUMA, PCIe power management): FabricReceivePathDiffersFromPeers names the fact.' % c.backpressureWindow, for_=c.backpressureFor),
        ],
      },
      {
        name: 'fabric-ladder.paths',
        rules: [
          // Shape 2. One stream's ceiling is a property of TCP on the hardware (the ladder
          // shows it); it is an alert only where it binds a real transfer: one bulk flow all
          // through the window (a tool that moves its data over one connection), far below what
          // parallel streams carry on the same path. Where that one flow sits against the
          // single-stream probe does not matter: the field's tools ran at 8-18 Gbit/s against
          // a 47 Gbit/s probe stream, still single-stream by construction.
          alert('FabricSingleStreamCeiling', 'info', |||
            (
              (%(sent)s and on (instance, target, application) (%(streams)s == 1))
              > on (instance, target) group_left () %(floor)s
            )
            / on (instance, target) group_left ()
              max by (instance, target) (%(u)s{probe="tcp_multi", direction="send"})
            < %(singleStreamRatio)s
          ||| % (c { u: uncontended, sent: sentRate, streams: sentStreams, floor: floor }), 'A transfer runs over a single TCP stream, far below what parallel streams carry.',
                'One {{ $labels.application }} connection from {{ $labels.instance }} to {{ $labels.target }} carried the transfer all through the last %s, at %sB/s: {{ $value | humanizePercentage }} of the %sB/s parallel streams carry on this path (one TCP stream reaches %sB/s here). A tool that moves its data over one connection cannot use the path: transfer with parallel streams (nconnect, several rsync or scp jobs, a parallel mover).' % [
                  c.transferWindow,
                  moved,
                  qe('max(%s{probe="tcp_multi",direction="send",instance=%%q,target=%%q})' % uncontended, ['instance', 'target']),
                  qe('max(%s{probe="tcp_single",direction="send",instance=%%q,target=%%q})' % uncontended, ['instance', 'target']),
                ]),
          // Shape 3: the multi-stream result is streams x the per-stream ceiling (the probe's
          // stream_limited verdict) and the stream sweep it triggered reached more with more
          // streams: the stream count, not the path, set the number. Each such record is
          // charged to the end that binds: the sending end (data a receive record measures
          // comes from its target), or the receiving end where the record says its CPU ran a
          // full core and the sender's did not. One alert per node and side.
          alert('FabricProbeStreamLimited', 'info', |||
            count by (instance, side) (
              label_replace(%(sendSenderBinds)s, "side", "transmit", "", "")
              or label_replace(%(receiveReceiverBinds)s, "side", "receive", "", "")
              or (
                label_replace(
                  label_replace(
                    label_replace(%(receiveSenderBinds)s, "side", "transmit", "", "")
                    or label_replace(%(sendReceiverBinds)s, "side", "receive", "", ""),
                    "node", "$1", "target", "(.+)"
                  ),
                  "prober", "$1", "instance", "(.+)"
                )
                * on (node) group_left (instance) max by (instance, node) (fabric_fleet_node_info{%(selector)s})
              )
            ) > 0
          ||| % (c {
                   local plateau(d) = |||
                     (
                       fabric_probe_throughput_bytes_per_second{%(selector)s, probe="tcp_multi_sweep", direction="%(d)s"}
                       > on (instance, target, direction) group_left ()
                         %(sweepGain)s * fabric_probe_throughput_bytes_per_second{%(selector)s, probe="tcp_multi"}
                       and on (instance, target, direction)
                         (fabric_probe_verdict{%(selector)s, probe="tcp_multi", verdict="stream_limited"} == 1)
                       and on (instance, target, direction)
                         fabric_probe_streams{%(selector)s, probe="tcp_multi_sweep"}
                         > on (instance, target, direction) group_left ()
                           fabric_probe_streams{%(selector)s, probe="tcp_multi"}
                     )
                   ||| % (c { d: d }),
                   // The receiving end's CPU at a core, the sender's not (send records: the
                   // responder receives; receive records: this node does).
                   local receiverBinds = |||
                     (
                       fabric_probe_remote_cpu_ratio{%(selector)s, probe="tcp_multi", direction="send"} >= %(harnessCpuRatio)s
                       and on (instance, target, direction)
                         fabric_probe_local_cpu_ratio{%(selector)s, probe="tcp_multi", direction="send"} < %(harnessCpuRatio)s
                     )
                     or
                     (
                       fabric_probe_local_cpu_ratio{%(selector)s, probe="tcp_multi", direction="receive"} >= %(harnessCpuRatio)s
                       and on (instance, target, direction)
                         fabric_probe_remote_cpu_ratio{%(selector)s, probe="tcp_multi", direction="receive"} < %(harnessCpuRatio)s
                     )
                   ||| % c,
                   sendSenderBinds: '(%s unless on (instance, target, direction) (%s))' % [plateau('send'), receiverBinds],
                   sendReceiverBinds: '(%s and on (instance, target, direction) (%s))' % [plateau('send'), receiverBinds],
                   receiveSenderBinds: '(%s unless on (instance, target, direction) (%s))' % [plateau('receive'), receiverBinds],
                   receiveReceiverBinds: '(%s and on (instance, target, direction) (%s))' % [plateau('receive'), receiverBinds],
                 }), 'Multi-stream results plateau at streams x the per-stream ceiling.',
                '{{ $value }} multi-stream TCP result(s) of data {{ if eq $labels.side "receive" }}received by{{ else }}sent by{{ end }} {{ $labels.instance }} are %s streams x the per-stream ceiling of its {{ $labels.side }} side; the stream sweep reached %sB/s with %s streams. Raise the stream count of bulk transfers {{ if eq $labels.side "receive" }}into{{ else }}from{{ end }} {{ $labels.instance }}, and probes.tcp.streams in the probe plan of the nodes that probe it, so its rung measures the path.' % [
                  qe(streamLimitedOf('fabric_probe_streams', 'tcp_multi'), ['instance', 'instance'], 'printf "%.0f"'),
                  qe(streamLimitedOf('fabric_probe_throughput_bytes_per_second', 'tcp_multi_sweep'), ['instance', 'instance']),
                  qe(streamLimitedOf('fabric_probe_streams', 'tcp_multi_sweep'), ['instance', 'instance'], 'printf "%.0f"'),
                ]),
          // Shape 4: the copy-mode comparison run against its own sendfile reference, measured
          // back to back in the rung's sessions (direction pattern, block size): the modes
          // compared and the block size are the alert's labels (fabric_probe_info's), so
          // copy against copy never reads as a gap. A contended run is a share, not the mode.
          alert('FabricCopyPathGap', 'info', |||
            min by (instance, mode, reference_mode, block_bytes) (
              (
                fabric_probe_throughput_bytes_per_second{%(selector)s, probe="tcp_multi_copy"}
                unless on (instance, probe, target, direction)
                  (fabric_probe_verdict{%(selector)s, probe="tcp_multi_copy", verdict="contended"} == 1)
              )
              / on (instance, probe, target, direction)
                fabric_probe_reference_throughput_bytes_per_second{%(selector)s, probe="tcp_multi_copy"}
              * on (instance, probe, target, direction) group_left (mode, reference_mode, block_bytes)
                fabric_probe_info{%(selector)s, probe="tcp_multi_copy", mode!="", reference_mode!=""}
            ) < %(copyRatio)s
          ||| % c, 'Userspace copies reach a fraction of the zero-copy rate.',
                'In {{ $labels.mode }} mode (read()/write() through userspace) the multi-stream probe from {{ $labels.instance }} reaches {{ $value | humanizePercentage }} of its {{ $labels.reference_mode }} rate, both measured back to back with {{ $labels.block_bytes | humanize1024 }}B blocks, the same streams and the same directions: tools that copy through userspace (dd | socat, many transfer tools) are CPU- or memory-capped on this node; use sendfile or O_DIRECT-chunked tools.'),
          // Shape 8: the sending end of an ssh, scp or sftp session (rsync or tar over ssh
          // too: the flows collector names the connection by port 22 or its ssh process), over
          // the window so a per-file scp loop is one transfer.
          alert('FabricBulkTransferOverSsh', 'warning', |||
            %(sent)s{application=~"%(sshApplications)s"}
            > on (instance, target) group_left () %(floor)s
          ||| % (c { sent: sentRate, floor: floor }), 'Bulk data moves over SSH on the fabric.',
                '{{ $labels.instance }} sends {{ $value | humanize }}B/s of bulk data to {{ $labels.target }} over {{ $labels.application }} (ssh, scp, sftp, or rsync and tar over ssh) in the last %s: SSH encrypts and frames every byte in one process per session, on a path that needs no encryption. This path proved %sB/s with TCP; use a transfer that does not run through ssh (rsync daemon, NFS, a parallel mover) or several sessions.' % [c.transferWindow, qe('max(instance_target_direction:fabric_probe_throughput_bytes_per_second:max{probe="tcp_multi",direction="send",instance=%q,target=%q})', ['instance', 'target'])]),
          // Shapes 8 and 9 as the symptom: the page.
          alert('FabricTransfersFarBelowLadder', 'critical', |||
            (
              %(moved)s
              > on (instance, target) group_left () %(floor)s
            )
            / on (instance, target, direction) group_left ()
              max without (probe) (%(u)s{probe="tcp_multi"})
            < %(transferCriticalRatio)s
          ||| % (c { u: uncontended, floor: floor, moved: movedRate }), 'Real transfers run far below the ceiling the fabric proved.',
                'Real bulk transfers %s moved %sB/s over the last %s, {{ $value | humanizePercentage }} of the %sB/s the multi-stream TCP probe proved on the same path: the applications, not the fabric, are the limit.' % [flow, q(movedRate, pair), c.transferWindow, q(uncontended, pair, fixed='probe="tcp_multi"')], for_=c.transferPageFor),
          // Shape 9: a transfer the application itself held most of the time (not sending, or
          // its receiver not reading), against raw TCP with as many streams on the same path:
          // its stream count x the single-stream rung, at most the N-stream rung (a 3-flow tool
          // is not judged against 8 streams). ssh and userspace copy pipelines have shapes of
          // their own (8 and 4).
          alert('FabricApplicationProtocolGap', 'warning', |||
            (
              (
                (%(app)s and on (instance, target, application) (%(streams)s == 1))
                / on (instance, target, application) %(raw)s
              ) < %(appSingleStreamRatio)s
              or
              (
                (%(app)s and on (instance, target, application) (%(streams)s > 1))
                / on (instance, target, application) %(raw)s
              ) < %(appMultiStreamRatio)s
            )
            and on (instance, target, application) (%(app)s > on (instance, target) group_left () %(floor)s)
            and on (instance, target, application) (%(share)s >= %(appLimitedShare)s)
          ||| % (c {
                   app: '%s{application!~"%s|%s|fabric_probe"}' % [sentRate, c.sshApplications, c.copyApplications],
                   streams: sentStreams,
                   raw: atStreams,
                   share: heldShare,
                   floor: floor,
                 }), 'An application moves far less than raw TCP with as many streams on the same path.',
                '{{ $labels.application }} from {{ $labels.instance }} to {{ $labels.target }} moved %sB/s over the last %s on %s connection(s) at most: {{ $value | humanizePercentage }} of the %sB/s raw TCP carries with as many streams on this path (that many times the single-stream probe, at most the multi-stream probe). The application itself held its flows %s of the time (not sending, or its receiver not reading): its protocol, not the network or the socket buffers, is the ceiling.' % [
                  moved, c.transferWindow, streams, rawTcp,
                  qe('%s{instance=%%q,target=%%q,application=%%q}' % heldShare, ['instance', 'target', 'application'], 'humanizePercentage'),
                ]),
          // Shape 4 on a real transfer: the process holding the sending socket is a tool that
          // moves the stream through userspace read()/write() buffers (socat, netcat, mbuffer:
          // dd | socat, tar | nc), below raw TCP with as many streams on the same path.
          alert('FabricUserspaceCopyTransfer', 'info', |||
            (
              (
                %(sent)s{application=~"%(copyApplications)s"}
                > on (instance, target) group_left () %(floor)s
              )
              / on (instance, target, application) %(raw)s
            ) < %(copyTransferRatio)s
          ||| % (c { sent: sentRate, raw: atStreams, floor: floor }), 'A transfer runs through a userspace copy pipeline, far below raw TCP.',
                'A {{ $labels.application }} pipeline from {{ $labels.instance }} to {{ $labels.target }} moved %sB/s over the last %s: {{ $value | humanizePercentage }} of the %sB/s raw TCP carries with as many streams on this path. Its process copies every byte through userspace read()/write() buffers (dd | socat, tar | nc); the copy-mode probe shows what such copies reach on this node. Use a tool that sends with sendfile or splice, or several streams.' % [moved, c.transferWindow, rawTcp]),
          // Shape 11.
          alert('FabricRetransmitStormSpeedMismatch', 'info', |||
            max by (instance, target) (
              fabric_probe_retransmits{%(selector)s, probe=~"tcp_multi|tcp_single", direction=~"send|both"}
              / fabric_probe_window_seconds{%(selector)s, probe=~"tcp_multi|tcp_single", direction=~"send|both"}
            ) > %(retransmitsPerSecond)s
            and on (instance, target)
              instance_target:fabric_path_speed_ratio:max > %(speedMismatchRatio)s
          ||| % c, 'Retransmit storm where a faster sender meets a slower receiver.',
                '{{ $labels.instance }} retransmits {{ $value | humanize }} segments/s to {{ $labels.target }}, whose line rate is %s times slower: expected when a fast sender overruns a slow receiver; it shares fairly, and flow control or ECN are the remedy if it hurts.' % q('instance_target:fabric_path_speed_ratio:max', ['instance', 'target'], 'printf "%.3g"'), for_=c.retransmitStormFor),
          // One path far below its peers (a shaper or policer, a degraded port, a wrong route):
          // its clean multi-stream result as a fraction of what the path can carry, against
          // the fleet's median fraction for the same direction. Paths of different line rates
          // compare by fraction; cpu_bound and contended runs never judge a path.
          alert('FabricPathFarBelowPeers', 'warning', |||
            max without (probe) (%(f)s)
            < on (direction) group_left ()
              %(pathFleetRatio)s * quantile by (direction) (0.5, %(f)s)
            and on (direction)
              count by (direction) (%(f)s) >= %(pathFleetMinPaths)s
          ||| % (c { f: pathFraction }), 'One path moves far less than the same probe on the rest of the fleet.',
                'Data %s moves at %sB/s with the multi-stream TCP probe ({{ $labels.instance }}\'s {{ $labels.direction }} result), {{ $value | humanizePercentage }} of what the path can carry, under %g%% of the fleet median of %s over the %s paths probed in that direction: this path, not the fleet, is slow (a shaper or policer, a degraded link or switch port, a wrong route, or the sender\'s transmit side).' % [
                  flow,
                  q(clean, pair, fixed='probe="tcp_multi"'),
                  100 * c.pathFleetRatio,
                  qe('quantile(0.5, %s{direction=%%q})' % pathFraction, ['direction'], 'humanizePercentage'),
                  qe('count(%s{direction=%%q})' % pathFraction, ['direction'], 'printf "%.0f"'),
                ]),
          // The bisection's blame (docs/probes/scheduled.md#bisection): after a low or failed
          // plan result to the target, retests against known-good peers of the target's rack
          // and of this node's own placed the fault at one end or between the racks. Each run
          // was judged against its own path's line rate (the slower end).
          alert('FabricProbeSuspectEnd', 'info', |||
            max by (instance, target, suspect) (fabric_probe_suspect{%(selector)s}) == 1
          ||| % c, 'Retests place a slow path\'s fault at one end or between two racks.',
                '{{ $labels.instance }}\'s results to {{ $labels.target }} were low or failed, and its retests against known-good peers blame {{ if eq $labels.suspect "peer" }}{{ $labels.target }}\'s end: a peer in {{ $labels.target }}\'s rack was fine from here{{ else if eq $labels.suspect "self" }}{{ $labels.instance }} itself: a peer in its own rack was low too{{ else }}the way between {{ $labels.instance }}\'s rack and {{ $labels.target }}\'s: a peer in its own rack was fine, one in the target\'s rack was low{{ end }}.'),
        ],
      },
      {
        name: 'fabric-ladder.storage',
        rules: [
          // Shape 5: the buffered comparison run against the direct-I/O read it took right
          // after itself, with the same jobs (one slot: never two moments' results).
          alert('FabricStorageBufferedReadSlow', 'info', |||
            max by (instance, target) (
              fabric_probe_throughput_bytes_per_second{%(selector)s, probe="storage_read_buffered"}
              / fabric_probe_reference_throughput_bytes_per_second{%(selector)s, probe="storage_read_buffered"}
            ) < %(bufferedRatio)s
          ||| % c, 'Buffered reads reach a fraction of direct I/O.',
                'Buffered (page-cache) reads of {{ $labels.target }} on {{ $labels.instance }} reach {{ $value | humanizePercentage }} of direct I/O with the same jobs, both read back to back: cp/rsync-style readers are capped by the page cache; read with O_DIRECT and large blocks.'),
          // Shape 6: one shared file against separate files at the same parallelism.
          alert('FabricStorageSingleFileContention', 'info', |||
            max by (instance, target) (fabric_probe_throughput_bytes_per_second{%(selector)s, probe="storage_read_shared_file"})
            / max by (instance, target) (fabric_probe_throughput_bytes_per_second{%(selector)s, probe="storage_read_separate_files"})
            < %(singleFileRatio)s
          ||| % c, 'Parallel reads of one file are far slower than of many files.',
                'Parallel reads of one file in {{ $labels.target }} on {{ $labels.instance }} reach {{ $value | humanizePercentage }} of the same parallelism over separate files: parallelise across files.'),
          // Shape 7 (a latency-bound directory, shape 12, is named by its own alert).
          alert('FabricStorageWriteFarBelowRead', 'warning', |||
            (
              max by (instance, target) (fabric_probe_throughput_bytes_per_second{%(selector)s, probe="storage_write"})
              / max by (instance, target) (fabric_probe_throughput_bytes_per_second{%(selector)s, probe="storage_read"})
              < %(writeReadRatio)s
            )
            unless on (instance, target) %(lb)s
          ||| % (c { lb: latencyBound }), 'A filesystem writes far slower than it reads.',
                'Writes to {{ $labels.target }} on {{ $labels.instance }} reach {{ $value | humanizePercentage }} of its reads (%sB/s): filesystem settings (compression, recordsize, sync) are the limit for data received here.' % qe('max(fabric_probe_throughput_bytes_per_second{probe="storage_read",instance=%q,target=%q})', ['instance', 'target'])),
          alert('FabricStorageWriteBelowFleet', 'warning', |||
            (
              max by (instance, target) (fabric_probe_throughput_bytes_per_second{%(selector)s, probe="storage_write"})
              < %(writeFleetRatio)s * scalar(quantile(0.5,
                  max by (instance, target) (fabric_probe_throughput_bytes_per_second{%(selector)s, probe="storage_write"})
                ))
            )
            unless on (instance, target) %(lb)s
          ||| % (c { lb: latencyBound }), 'A node writes far slower than the fleet.',
                'Writes to {{ $labels.target }} on {{ $labels.instance }} reach {{ $value | humanize }}B/s, against a fleet median of %sB/s: this is the weakest node to receive bulk data.' % '{{ with query `quantile(0.5, max by (instance, target) (fabric_probe_throughput_bytes_per_second{probe="storage_write"}))` }}{{ . | first | value | humanize }}{{ end }}'),
          // Shape 12: one I/O at a time is slow per I/O, and the loaded run moves several times
          // more: throughput = in-flight x block / latency. One alert per depth-1 run (probe)
          // and its loaded rung (rung), each quoting its own numbers: a directory whose writes
          // are latency-bound may read fine.
          alert('FabricStorageLatencyBound', 'info', |||
            label_replace(
              max by (instance, target, probe) (fabric_probe_throughput_bytes_per_second{%(selector)s, probe=~"storage_(read|write)_depth1"}),
              "rung", "$1", "probe", "(storage_(?:read|write))_depth1"
            )
            and on (instance, target, rung) %(lb)s
          ||| % (c { lb: latencyBound }), 'Storage throughput is in-flight I/O divided by latency.',
                'One {{ if eq $labels.rung "storage_write" }}write{{ else }}read{{ end }} at a time, {{ $labels.target }} on {{ $labels.instance }} moves {{ $value | humanize }}B/s at %ss per I/O, while the loaded {{ $labels.rung }} run moves %sB/s: single-threaded writers and readers are latency-bound here; more jobs or a deeper queue raise throughput, the device does not.' % [
                  qe('max(fabric_probe_latency_p50_seconds{instance=%q,target=%q,probe=%q})', ['instance', 'target', 'probe']),
                  qe('max(fabric_probe_throughput_bytes_per_second{instance=%q,target=%q,probe=%q})', ['instance', 'target', 'rung']),
                ]),
        ],
      },
      {
        name: 'fabric-ladder.instrument',
        rules: [
          // Staleness is judged against each record's own schedule: a record is stale once
          // its age passes twice its planned period (fabric_probe_period_seconds: the plan's
          // period for a pair, the rotation's for a comparison run, the interval of a local
          // probe) plus a slack for the round offset and a run the budget deferred. A record
          // without a period (an exporter before it) falls back to the fixed age, rungs and
          // the path check only. The stream sweep runs only when a tcp_multi result asks for
          // it, so hours between its runs are no schedule missed.
          alert('FabricProbeStale', 'warning', |||
            (
              (
                time() - fabric_probe_last_run_timestamp_seconds{%(selector)s, probe!="tcp_multi_sweep"}
                > on (job, instance, probe, target, direction)
                  (2 * fabric_probe_period_seconds{%(selector)s} + %(probeStaleSlackSeconds)s)
              )
              or
              (
                time() - fabric_probe_last_run_timestamp_seconds{%(selector)s, %(scheduled)s} > %(probeStaleSeconds)s
                unless on (job, instance, probe, target, direction) fabric_probe_period_seconds{%(selector)s}
              )
            )
            and fabric_probe_last_run_timestamp_seconds{%(selector)s} > 0
          ||| % (c { scheduled: scheduled }), 'A probe record is overdue against its own schedule.',
                'The {{ $labels.probe }} probe from {{ $labels.instance }} to {{ $labels.target }} last ran {{ $value | humanizeDuration }} ago, %s: this record is stale.' % '{{ with printf `fabric_probe_period_seconds{instance=%q,probe=%q,target=%q,direction=%q}` $labels.instance $labels.probe $labels.target $labels.direction | query }}more than twice its planned period of {{ . | first | value | humanizeDuration }}{{ else }}longer than the fixed staleness age (it exports no planned period){{ end }}', for_=c.probeStaleFor),
          alert('FabricProbeNeverRan', 'info', |||
            fabric_probe_last_run_timestamp_seconds{%(selector)s, %(scheduled)s} == 0
          ||| % (c { scheduled: scheduled }), 'A scheduled probe has never run.',
                'The {{ $labels.probe }} probe from {{ $labels.instance }} to {{ $labels.target }} is scheduled but has not run once: this rung of the ladder is missing.', for_=c.probeNeverRanFor),
          alert('FabricProbeFailing', 'warning', |||
            fabric_probe_failure_info{%(selector)s}
          ||| % c, 'A probe fails.',
                'The last run of the {{ $labels.probe }} probe from {{ $labels.instance }} to {{ $labels.target }} failed ({{ $labels.reason }}): this rung of the ladder is not measured.', for_=c.probeFailingFor),
          // Once per node, rung and verdict: that node's harness limited the rung's results
          // (cpu_bound: its own stream threads saturated a core) or its path was shared
          // (contended: a property of the moment, which the fleet breaker does not count). A result CPU-bound at
          // the far end is the far end's harness; the single-stream rung is by definition one
          // core's ceiling; stream-limited results are named by FabricProbeStreamLimited.
          alert('FabricProbeHarnessLimited', 'info', |||
            max by (instance, probe, verdict) (
              (fabric_probe_verdict{%(selector)s, verdict=~"cpu_bound|contended", %(measured)s} == 1)
              unless on (instance, probe, target, direction)
                (fabric_probe_verdict{%(selector)s, verdict="stream_limited"} == 1)
              unless on (instance, probe, target, direction)
                (
                  fabric_probe_local_cpu_ratio{%(selector)s} < %(harnessCpuRatio)s
                  and on (instance, probe, target, direction) fabric_probe_remote_cpu_ratio{%(selector)s} >= %(harnessCpuRatio)s
                  unless on (instance, probe, target, direction) (fabric_probe_verdict{%(selector)s, verdict="contended"} == 1)
                )
            )
            or
            max by (instance, probe, verdict) (
              label_replace(
                max by (target, probe, verdict) (
                  (fabric_probe_verdict{%(selector)s, verdict="cpu_bound", %(measured)s} == 1)
                  and on (instance, probe, target, direction)
                    (fabric_probe_remote_cpu_ratio{%(selector)s} >= %(harnessCpuRatio)s)
                  unless on (instance, probe, target, direction)
                    (fabric_probe_verdict{%(selector)s, verdict="stream_limited"} == 1)
                ),
                "node", "$1", "target", "(.+)"
              )
              * 0 + on (node) group_left (instance) max by (instance, node) (fabric_fleet_node_info{%(selector)s})
            )
          ||| % (c { measured: 'probe=~"tcp_multi|rdma|storage_read|storage_write"' }), 'Probe results of a node measure its harness, not the fabric.',
                // The node's own records with the alert's verdict, counted; a node named only
                // by its peers' records (its responder saturated a core) has none of its own.
                '{{ $labels.instance }}\'s {{ $labels.probe }} results measure its probe harness or a shared path, not the fabric (%s): they are no fabric ceiling, and no cause alert judges a path by them.' % '{{ with printf `count(fabric_probe_verdict{instance=%q,probe=%q,verdict=%q} == 1)` $labels.instance $labels.probe $labels.verdict | query }}{{ . | first | value }} flagged {{ $labels.verdict }}{{ else }}its responder ran a full core in its peers\' cpu_bound runs{{ end }}', for_=c.harnessLimitedFor),
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
