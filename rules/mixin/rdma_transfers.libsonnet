// RDMA traffic per port (issue 43): the port's byte counters (fabric_rdma_port_bytes_total,
// the IB PortXmitData/PortRcvData words the rdma collector converts to bytes) as rates, and
// the same less what this node's RDMA probe wrote through the port
// (fabric_probe_spent_rdma_bytes_total{role="requester"}): the applications' share. Recording
// rules only, in the `fabric-ladder.layers` group, so no rule test's group order changes.
{
  local c = $._config,
  local port = 'instance_device_port_direction:fabric_rdma_port_bytes_per_second:sum',
  local recording = [
    {
      // Bytes per second through each RDMA port, per direction (tx, rx).
      record: port,
      expr: |||
        sum by (instance, device, port, direction) (
          rate(fabric_rdma_port_bytes_total{%(selector)s}[%(rdmaTransferRateWindow)s])
        )
      ||| % c,
    },
    {
      // The port's rate less the probe's own RDMA WRITEs through it (the requester's tx; a
      // responder cannot count what a peer's probe writes into it, so rx keeps that). Floored
      // at 0: the port counts headers the probe's payload count does not, and the two rates
      // see the run's edges at different scrapes. Ports the probe never used keep their rate.
      record: 'instance_device_port_direction:fabric_rdma_port_application_bytes_per_second:sum',
      expr: |||
        clamp_min(
          %(port)s
          - on (instance, device, port, direction)
          label_replace(
            sum by (instance, device, port) (
              rate(fabric_probe_spent_rdma_bytes_total{%(selector)s, role="requester"}[%(rdmaTransferRateWindow)s])
            ),
            "direction", "tx", "", ""
          ),
          0
        )
        or
        %(port)s
      ||| % (c { port: port }),
    },
  ],
  prometheusRules+:: {
    groups: [
      if g.name == 'fabric-ladder.layers' then g { rules+: recording } else g
      for g in super.groups
    ],
  },
}
