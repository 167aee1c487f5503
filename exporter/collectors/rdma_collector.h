#pragma once

#include <memory>

#include "exporter/metrics/collector.h"

namespace fabric {

// RDMA ports from /sys/class/infiniband: state, rate, the IB port counters
// (data converted from 4-octet words to bytes) and the driver's hw_counters
// (congestion notification, retransmission and buffer exhaustion).
std::unique_ptr<Collector> MakeRdmaCollector(const CollectorContext& context);

}  // namespace fabric
