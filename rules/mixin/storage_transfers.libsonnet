// Storage transfers that never touch a TCP socket (issue 43): NFS (tcp and rdma) from the nfs
// collector and NVMe over Fabrics from the nvmeof collector, per node, path (`target`, the
// fleet node the server or target is) and direction, against the RDMA rung of the same path.
// The recording rules join the `fabric-ladder.layers` group and the alerts the
// `fabric-ladder.storage` group, so the rule tests' group order stays as it is.
{
  local c = $._config,
  local rdmaRung = 'instance_target_direction:fabric_probe_uncontended_throughput_bytes_per_second:max{probe="rdma"}',
  local nfs = 'instance_target_direction_transport:fabric_nfs_bytes_per_second:sum',
  local nvmeof = 'instance_target_direction_transport:fabric_nvmeof_bytes_per_second:sum',
  // Each mount with the fleet node its server is as `target` (mounts of servers outside the
  // fleet have no path, no rung, and are not judged).
  local mountTarget = |||
    label_replace(
      max by (instance, mountpoint, server, transport, peer) (fabric_nfs_mount_info{%(selector)s, peer!=""}),
      "target", "$1", "peer", "(.+)"
    )
  ||| % c,
  local nfsRate(metric, direction) = |||
    label_replace(
      sum by (instance, target, transport) (
        rate(%(metric)s{%(selector)s}[%(storageTransferRateWindow)s])
        * on (instance, mountpoint, server, transport) group_left (target) %(mounts)s
      ),
      "direction", "%(direction)s", "", ""
    )
  ||| % (c { metric: metric, direction: direction, mounts: mountTarget }),
  // NVMe-oF targets by address (`target` is the controller's traddr) renamed to the fleet
  // node of that address.
  // NVMe-oF targets by address (`target` is the controller's traddr) renamed to the fleet
  // node of that address (instance_peer:fabric_fleet_peer:info: peer is the address).
  local nvmeofNamed(metric, direction) = |||
    label_replace(
      sum by (instance, peer, transport) (
        label_replace(rate(%(metric)s{%(selector)s}[%(storageTransferRateWindow)s]), "peer", "$1", "target", "(.+)")
      )
      * on (instance, peer) group_left (target) group by (instance, peer, target) (instance_peer:fabric_fleet_peer:info),
      "direction", "%(direction)s", "", ""
    )
  ||| % (c { metric: metric, direction: direction }),
  // What a mount asked for, humanised, for the alert's own mount.
  local requested(size) =
    '{{ with printf `max(fabric_nfs_mount_requested_%s_bytes{instance=%%q,mountpoint=%%q})` $labels.instance $labels.mountpoint | query }}{{ . | first | value | humanize1024 }}{{ else }}unknown{{ end }}' % size,
  local runbook(name) = '%s#%s' % [c.runbookBase, std.asciiLower(name)],

  local recording = [
    {
      // NFS payload per node, path, direction (send: WRITE, receive: READ) and transport.
      record: nfs,
      expr: nfsRate('fabric_nfs_write_bytes_total', 'send') + 'or\n' +
            nfsRate('fabric_nfs_read_bytes_total', 'receive'),
    },
    {
      // NVMe over Fabrics per node, path, direction (send: writes, receive: reads) and
      // transport.
      record: nvmeof,
      expr: 'sum without (peer) (\n' + nvmeofNamed('fabric_nvmeof_write_bytes_total', 'send') + 'or\n' +
            nvmeofNamed('fabric_nvmeof_read_bytes_total', 'receive') + ')\n',
    },
  ],

  local alerts = [
    {
      alert: 'FabricNfsTransferSizeCapped',
      // What a mount asked for is known only where collectors.nfs.requested_options_file
      // names it; without it there is no evidence and no alert.
      expr: |||
        label_replace(
          max by (instance, mountpoint, server, transport) (fabric_nfs_mount_rsize_bytes{%(selector)s})
          < max by (instance, mountpoint, server, transport) (fabric_nfs_mount_requested_rsize_bytes{%(selector)s}),
          "size", "rsize", "", ""
        )
        or
        label_replace(
          max by (instance, mountpoint, server, transport) (fabric_nfs_mount_wsize_bytes{%(selector)s})
          < max by (instance, mountpoint, server, transport) (fabric_nfs_mount_requested_wsize_bytes{%(selector)s}),
          "size", "wsize", "", ""
        )
      ||| % c,
      'for': c.causeFor,
      labels: { severity: 'warning' },
      annotations: {
        summary: 'An NFS mount negotiated a smaller transfer size than it asked for.',
        description: 'NFS mount {{ $labels.mountpoint }} on {{ $labels.instance }} ({{ $labels.server }} over {{ $labels.transport }}) runs with {{ $labels.size }}={{ $value | humanize1024 }}B, below the %sB it asked for: the server or the transport capped it (NFS over RDMA caps both sizes at its largest chunk), so every READ or WRITE moves less per round trip.' % ('{{ if eq $labels.size "rsize" }}%s{{ else }}%s{{ end }}' % [requested('rsize'), requested('wsize')]),
        runbook_url: runbook('FabricNfsTransferSizeCapped'),
      },
    },
    {
      alert: 'FabricStorageTransfersBelowRdma',
      // The symptom on the storage protocols: like the page for TCP flows, only while at
      // least transferMinPathRatio of the path's RDMA rung (and transferMinBytesPerSecond)
      // moves, against the uncontended RDMA rung of the path.
      expr: |||
        (
          (
            label_replace(%(nfs)s, "protocol", "nfs", "", "")
            or label_replace(%(nvmeof)s, "protocol", "nvmeof", "", "")
          ) > %(transferMinBytesPerSecond)s
        )
        / on (instance, target, direction) group_left () max without (probe) (%(rung)s)
        < %(storageRdmaRatio)s > %(transferMinPathRatio)s
      ||| % (c { nfs: nfs, nvmeof: nvmeof, rung: rdmaRung }),
      'for': c.storageTransferFor,
      labels: { severity: 'warning' },
      annotations: {
        summary: 'NFS or NVMe over Fabrics moves far below the RDMA rung of its path.',
        description: '{{ if eq $labels.protocol "nfs" }}NFS{{ else }}NVMe over Fabrics{{ end }} transfers over {{ $labels.transport }} {{ if eq $labels.direction "receive" }}from {{ $labels.target }} to {{ $labels.instance }}{{ else }}from {{ $labels.instance }} to {{ $labels.target }}{{ end }} reach {{ $value | humanizePercentage }} of the %sB/s RDMA proved on the same path: the storage protocol (transfer size, transport, server), not the fabric, is the limit.' % '{{ with printf `max(instance_target_direction:fabric_probe_uncontended_throughput_bytes_per_second:max{probe="rdma",instance=%q,target=%q,direction=%q})` $labels.instance $labels.target $labels.direction | query }}{{ . | first | value | humanize }}{{ else }}unknown{{ end }}',
        runbook_url: runbook('FabricStorageTransfersBelowRdma'),
      },
    },
    {
      alert: 'FabricNfsOverTcpWithRdmaRung',
      // A bulk NFS transfer on tcp (at least transferMinPathRatio of the RDMA rung) where the
      // same path proved RDMA.
      expr: |||
        (%(nfs)s{transport="tcp"} > %(transferMinBytesPerSecond)s)
        and on (instance, target, direction) (
          %(nfs)s{transport="tcp"}
          / on (instance, target, direction) group_left () max without (probe) (%(rung)s)
          > %(transferMinPathRatio)s
        )
      ||| % (c { nfs: nfs, rung: rdmaRung }),
      'for': c.storageTransferFor,
      labels: { severity: 'info' },
      annotations: {
        summary: 'Bulk NFS runs over TCP on a path that proved RDMA.',
        description: 'NFS over tcp moves {{ $value | humanize }}B/s {{ if eq $labels.direction "receive" }}from {{ $labels.target }} to {{ $labels.instance }}{{ else }}from {{ $labels.instance }} to {{ $labels.target }}{{ end }} while RDMA on the same path proved %sB/s: mount with proto=rdma (port 20049) to take the copies and the TCP stack off the path.' % '{{ with printf `max(instance_target_direction:fabric_probe_uncontended_throughput_bytes_per_second:max{probe="rdma",instance=%q,target=%q,direction=%q})` $labels.instance $labels.target $labels.direction | query }}{{ . | first | value | humanize }}{{ else }}unknown{{ end }}',
        runbook_url: runbook('FabricNfsOverTcpWithRdmaRung'),
      },
    },
  ],

  prometheusRules+:: {
    groups: [
      if g.name == 'fabric-ladder.layers' then g { rules+: recording } else g
      for g in super.groups
    ],
  },
  prometheusAlerts+:: {
    groups: [
      if g.name == 'fabric-ladder.storage' then g { rules+: alerts } else g
      for g in super.groups
    ],
  },
}
