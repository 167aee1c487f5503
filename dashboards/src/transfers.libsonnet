// Transfers: real bulk TCP flows (the flows collector) by peer, application and
// limiter, against the TCP ceiling the probes proved on the same path. The probe's
// own sockets (application="fabric_probe") are the ladder, not a transfer: left out,
// as the transfers record and the alerts leave them out.
local g = import '../lib/grafana.libsonnet';
local c = import 'common.libsonnet';

local sel = c.sel;
local rsel = c.rsel;
local transfers = 'instance_target_direction:fabric_transfers_bytes_per_second:sum{%s}' % rsel;
// What the page and the application alerts compare with: uncontended probe results (a run
// that shared its path measured a share of it; cpu_bound runs are what the node can do).
local ceiling(probe) =
  'max by (instance, target, direction) (instance_target_direction:fabric_probe_uncontended_throughput_bytes_per_second:max{%s, probe="%s"})' % [rsel, probe];
local fsel = sel + ', application=~"$application", application!="fabric_probe"';
local goodputBy(labels) =
  'sum by (instance, %s) (fabric_flows_goodput_bytes_per_second{%s})' % [labels, fsel];
local appVar = g.queryVariable(
  'application', 'Application', 'label_values(fabric_flows_goodput_bytes_per_second{job=~"$job", instance=~"$instance", application!="fabric_probe"}, application)'
);

g.dashboard(
  'fabric-ladder-transfers',
  'Fabric transfers',
  'Real bulk TCP transfers seen on the fabric interface (rsync, ssh, NFS, Ceph, ...) by peer, application and limiter, against the N-stream and 1-stream TCP ceilings the probes proved on the same path. The probe\'s own sockets (application="fabric_probe") are left out.',
  [
    g.row('Against the proven ceiling'),
    g.barGauge(
      'Transfers over the proven N-stream TCP ceiling',
      'Real transfers to (send) and from (receive) each fleet peer over the uncontended N-stream TCP probe result of that path and direction. Far below 1 while moving data: the application, not the fabric, is the limit (FabricTransfersFarBelowLadder pages below %g%% for 30 minutes).' % (100 * c.config.transferCriticalRatio),
      [g.target('%s / on (instance, target, direction) %s' % [transfers, ceiling('tcp_multi')], '{{instance}} → {{target}} {{direction}}', instant=true)],
      'percentunit', w=10, h=9,
    ) + g.minMax(0, 1) + g.thresholds([[null, 'red'], [c.config.transferCriticalRatio, 'orange'], [0.6, 'green']]),
    g.timeseries(
      'Transfers and TCP ceilings per peer',
      'Real transfers per fleet peer and direction with the uncontended N-stream and 1-stream TCP probe results of the same path (dashed): the gap is what the application leaves on the table. One stream\'s ceiling is a property of TCP on the hardware; it matters where a real transfer runs on one stream at it (FabricSingleStreamCeiling).',
      [
        g.target(transfers, '{{instance}} → {{target}} {{direction}} transfers'),
        g.target(ceiling('tcp_multi'), '{{instance}} → {{target}} {{direction}} N-stream ceiling'),
        g.target(ceiling('tcp_single'), '{{instance}} → {{target}} {{direction}} 1-stream ceiling'),
      ],
      'Bps', w=14, h=9,
    ) + { fieldConfig+: { overrides+: [{
      matcher: { id: 'byRegexp', options: '.*ceiling' },
      properties: [{ id: 'custom.lineStyle', value: { fill: 'dash', dash: [10, 10] } }],
    }] } },

    g.row('Real flows'),
    g.timeseries(
      'Goodput by peer',
      'Bulk-flow goodput per remote address (every peer, fleet member or not).',
      [g.target(goodputBy('peer'), '{{instance}} {{peer}}')],
      'Bps', w=8,
    ),
    g.timeseries(
      'Goodput by application',
      'Bulk-flow goodput per application (the process name of the socket\'s owner, or the well-known port).',
      [g.target(goodputBy('application'), '{{instance}} {{application}}')],
      'Bps', w=8,
    ),
    g.timeseries(
      'Goodput by limiter',
      'Bulk-flow goodput by what limited the flows: network, receiver_window, send_buffer, application (the sender was idle: the application could not feed it), remote_sender (inbound flows: the peer decides), unknown.',
      [g.target(goodputBy('limiter'), '{{instance}} {{limiter}}')],
      'Bps', w=8,
    ),
    g.table(
      'Flows by peer, application and limiter',
      'Each group of bulk flows now: their number, total goodput, the fastest single flow and its RTT. An application-limited group far below raw TCP with as many streams (one flow against the 1-stream probe, several flows together against the N-stream probe) means the application protocol, not TCP, is the limit (FabricApplicationProtocolGap).',
      [
        g.target('fabric_flows_bulk_flows{%s}' % fsel, instant=true, table=true),
        g.target('fabric_flows_goodput_bytes_per_second{%s}' % fsel, instant=true, table=true),
        g.target('fabric_flows_best_flow_goodput_bytes_per_second{%s}' % fsel, instant=true, table=true),
        g.target('fabric_flows_best_flow_rtt_seconds{%s}' % fsel, instant=true, table=true),
      ],
      'Bps',
      g.joinTables({ Time: null, job: null, 'Value #A': 'flows', 'Value #B': 'goodput', 'Value #C': 'best flow', 'Value #D': 'best flow RTT' }),
      w=24, h=9,
    ) + g.fieldUnit('flows', 'short') + g.fieldUnit('best flow RTT', 's'),
    g.timeseries(
      'Retransmitted segments of bulk flows',
      'Segments the bulk flows retransmitted per second, by peer.',
      [g.target('sum by (instance, peer) (rate(fabric_flows_retransmitted_segments_total{%s}[$__rate_interval]))' % fsel, '{{instance}} {{peer}}')],
      'pps', w=24, h=7,
    ),
  ],
  extraVariables=[appVar],
)
