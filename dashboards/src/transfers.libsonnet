// Transfers: real bulk TCP flows (the flows collector) by peer, application and
// limiter, against the TCP ceiling the probes proved on the same path; and the storage
// transfers that are no TCP socket (NFS over tcp or rdma, NVMe over Fabrics) against the
// RDMA rung of theirs; and RDMA traffic per port (the probe's own writes taken off) with
// the queue pairs and rdma_cm connections per process and peer. The probe's
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
  'Real bulk TCP transfers seen on the fabric interface (rsync, ssh, NFS, Ceph, ...) by peer, application and limiter, against the N-stream and 1-stream TCP ceilings the probes proved on the same path; NFS and NVMe over Fabrics against the RDMA rung of theirs. The probe\'s own sockets (application="fabric_probe") are left out.',
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

    g.row('Storage protocols: NFS and NVMe over Fabrics'),
    g.timeseries(
      'NFS and NVMe-oF per path against the RDMA rung',
      'NFS (READ and WRITE payload) and NVMe over Fabrics (namespace bytes) per fleet peer, direction and transport, with the uncontended RDMA probe result of the same path (dashed). Below %g%% of the rung while moving data: FabricStorageTransfersBelowRdma.' % (100 * c.config.storageRdmaRatio),
      [
        g.target('instance_target_direction_transport:fabric_nfs_bytes_per_second:sum{%s}' % rsel, '{{instance}} → {{target}} {{direction}} NFS over {{transport}}'),
        g.target('instance_target_direction_transport:fabric_nvmeof_bytes_per_second:sum{%s}' % rsel, '{{instance}} → {{target}} {{direction}} NVMe-oF over {{transport}}'),
        g.target(ceiling('rdma'), '{{instance}} → {{target}} {{direction}} RDMA ceiling'),
      ],
      'Bps', w=24, h=9,
    ) + { fieldConfig+: { overrides+: [{
      matcher: { id: 'byRegexp', options: '.*ceiling' },
      properties: [{ id: 'custom.lineStyle', value: { fill: 'dash', dash: [10, 10] } }],
    }] } },
    g.table(
      'NFS mounts: transport and transfer sizes',
      'Each NFS mount: its server, transport (tcp or rdma), the rsize/wsize the kernel negotiated and, where collectors.nfs.requested_options_file names it, what the mount asked for. Negotiated below requested: FabricNfsTransferSizeCapped (NFS over RDMA caps both at its largest chunk).',
      [
        g.target('fabric_nfs_mount_rsize_bytes{%s}' % sel, instant=true, table=true),
        g.target('fabric_nfs_mount_requested_rsize_bytes{%s}' % sel, instant=true, table=true),
        g.target('fabric_nfs_mount_wsize_bytes{%s}' % sel, instant=true, table=true),
        g.target('fabric_nfs_mount_requested_wsize_bytes{%s}' % sel, instant=true, table=true),
        g.target('fabric_nfs_transport_connections{%s}' % sel, instant=true, table=true),
      ],
      'bytes',
      g.joinTables({ Time: null, job: null, 'Value #A': 'rsize', 'Value #B': 'rsize asked', 'Value #C': 'wsize', 'Value #D': 'wsize asked', 'Value #E': 'connections' }),
      w=24, h=7,
    ) + g.fieldUnit('connections', 'short'),
    g.timeseries(
      'NFS payload per mount',
      'READ (receive) and WRITE (send) payload per NFS mount, page-cache hits left out.',
      [
        g.target('rate(fabric_nfs_read_bytes_total{%s}[$__rate_interval])' % sel, '{{instance}} {{mountpoint}} read'),
        g.target('rate(fabric_nfs_write_bytes_total{%s}[$__rate_interval])' % sel, '{{instance}} {{mountpoint}} write'),
      ],
      'Bps', w=8,
    ),
    g.timeseries(
      'NFS mean RTT of READ and WRITE',
      'Summed round-trip time over operations completed, per mount: a slow server or a congested path raises it; time queued before sending (requests waiting for a transport slot) is not in it.',
      [g.target('rate(fabric_nfs_rpc_rtt_seconds_total{%(s)s, operation=~"READ|WRITE"}[$__rate_interval]) / rate(fabric_nfs_rpc_operations_total{%(s)s, operation=~"READ|WRITE"}[$__rate_interval])' % { s: sel }, '{{instance}} {{mountpoint}} {{operation}}')],
      's', w=8,
    ),
    g.timeseries(
      'NVMe over Fabrics per controller',
      'Bytes read and written through each NVMe-oF controller (its namespaces), by target and transport.',
      [
        g.target('rate(fabric_nvmeof_read_bytes_total{%s}[$__rate_interval])' % sel, '{{instance}} {{controller}} {{target}} {{transport}} read'),
        g.target('rate(fabric_nvmeof_write_bytes_total{%s}[$__rate_interval])' % sel, '{{instance}} {{controller}} {{target}} {{transport}} write'),
      ],
      'Bps', w=8,
    ),

    g.row('Collectives: NCCL bus bandwidth'),
    g.timeseries(
      'Collective rung against the RDMA rung',
      'The best NCCL bus bandwidth across nodes at the large message sizes per collective (NCCL Inspector textfiles, nccl-tests JSON: the collective collector), with the node\'s best uncontended RDMA result (dashed). Below %g%% of the RDMA rung: FabricCollectiveBelowRdma.' % (100 * c.config.collectiveRdmaRatio),
      [
        g.target('instance_collective:fabric_collective_bus_bandwidth_bytes_per_second:max{%s}' % rsel, '{{instance}} {{collective}} bus bandwidth'),
        g.target('max by (instance) (instance_target_direction:fabric_probe_uncontended_throughput_bytes_per_second:max{%s, probe="rdma"})' % rsel, '{{instance}} RDMA ceiling'),
      ],
      'Bps', w=12, h=8,
    ) + { fieldConfig+: { overrides+: [{
      matcher: { id: 'byRegexp', options: '.*ceiling' },
      properties: [{ id: 'custom.lineStyle', value: { fill: 'dash', dash: [10, 10] } }],
    }] } },
    g.timeseries(
      'Bus bandwidth per collective, message size and scope',
      'Every series of the collective collector: the best bus bandwidth per source (nccl_inspector, nccl_tests), collective, message-size bucket and scope (inter_node, intra_node). Intra-node collectives run over NVLink or PCIe, not the fabric.',
      [g.target('fabric_collective_bus_bandwidth_bytes_per_second{%s}' % sel, '{{instance}} {{source}} {{collective}} {{message_size}} {{scope}}')],
      'Bps', w=12, h=8,
    ),
    g.table(
      'Collective files',
      'Files of collectors.collective.directory by source and state (read, stale, failed, over_limit), the reasons of the failed ones (syntax, truncated: a run still writing, no_results, unreadable, too_large), and the age of each measurement.',
      [
        g.target('fabric_collective_files{%s}' % sel, instant=true, table=true),
        g.target('fabric_collective_file_errors{%s}' % sel, instant=true, table=true),
      ],
      'short',
      g.joinTables({ Time: null, job: null, 'Value #A': 'files', 'Value #B': 'failing' }),
      w=12, h=7,
    ),
    g.timeseries(
      'Age of the collective measurements',
      'Seconds since each published measurement (NCCL Inspector\'s timestamp, else the file\'s modification time). The rules judge measurements younger than %d s.' % c.config.collectiveMaxAgeSeconds,
      [g.target('fabric_collective_measurement_age_seconds{%s}' % sel, '{{instance}} {{source}} {{collective}} {{message_size}}')],
      's', w=12, h=7,
    ),
    g.row('RDMA traffic: per port and per application'),
    g.timeseries(
      'RDMA bytes per port, the probe left out',
      'Each RDMA port\'s bytes (IB PortXmitData/PortRcvData, fabric_rdma_port_bytes_total) less what this node\'s RDMA probe wrote through it (fabric_probe_spent_rdma_bytes_total): the applications\' traffic. Dashed: the whole port, probe included. The mlx5 vport\'s own RoCE count (fabric_netdev_rdma_unicast_bytes_total) is on the node dashboard\'s netdev.',
      [
        g.target('instance_device_port_direction:fabric_rdma_port_application_bytes_per_second:sum{%s}' % rsel, '{{instance}} {{device}}/{{port}} {{direction}}'),
        g.target('instance_device_port_direction:fabric_rdma_port_bytes_per_second:sum{%s}' % rsel, '{{instance}} {{device}}/{{port}} {{direction}} port total'),
      ],
      'Bps', w=12, h=8,
    ) + { fieldConfig+: { overrides+: [{
      matcher: { id: 'byRegexp', options: '.*port total' },
      properties: [{ id: 'custom.lineStyle', value: { fill: 'dash', dash: [10, 10] } }],
    }] } },
    g.timeseries(
      'RDMA queue pairs per process and peer',
      'Queue pairs the kernel tracks (RDMA netlink resource tracking), by owning process ([module] for kernel users such as rpcrdma and nvme_rdma) and peer (the fleet node of the QP\'s rdma_cm id; unknown for QPs connected without rdma_cm, as NCCL and MPI do). Counts of objects, not bytes: no counter says which process moved the port\'s bytes (see docs/collectors.md#rdma).',
      [g.target('sum by (instance, command, peer) (fabric_rdma_queue_pairs{%s, state="RTS"})' % sel, '{{instance}} {{command}} → {{peer}}')],
      'short', w=12, h=8,
    ),
    g.table(
      'rdma_cm connections',
      'rdma_cm ids per process, peer, port space and state: where the kernel knows both ends of an RDMA connection (NFS and NVMe over RDMA, rdma_cm applications). LISTEN rows are servers (peer none).',
      [g.target('sum by (instance, device, port, command, pid, peer, port_space, state) (fabric_rdma_cm_ids{%s})' % sel, instant=true, table=true)],
      'short',
      g.joinTables({ Time: null, 'Value #A': 'cm ids' }),
      w=24, h=7,
    ),
  ],
  extraVariables=[appVar],
)
