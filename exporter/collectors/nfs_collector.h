#pragma once

#include <memory>

#include "exporter/metrics/collector.h"

namespace fabric {

// NFS client transfers per mount from /proc/self/mountstats: the transport
// (tcp or rdma) and its connections, the rsize/wsize the kernel negotiated
// beside those asked for in a configured fstab, bytes to and from the server,
// per-operation RPC counts, retransmissions, RTT and execution time, and the
// RPC-over-RDMA transport's own counters. The transfers rung of an RDMA fabric.
std::unique_ptr<Collector> MakeNfsCollector(const CollectorContext& context);

}  // namespace fabric
