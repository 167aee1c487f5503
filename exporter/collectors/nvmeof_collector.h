#pragma once

#include <memory>

#include "exporter/metrics/collector.h"

namespace fabric {

// NVMe over Fabrics controllers from /sys/class/nvme: transport (rdma, tcp,
// fc), target address, state, and the bytes and I/Os of their namespaces
// (each namespace's block stat): the remote-storage rung per target. Local
// PCIe controllers are left out (the pcie collector has their links).
std::unique_ptr<Collector> MakeNvmeofCollector(const CollectorContext& context);

}  // namespace fabric
