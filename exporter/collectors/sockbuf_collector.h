#pragma once

#include <memory>

#include "exporter/metrics/collector.h"

namespace fabric {

// Socket-buffer and packet-budget sysctls: the limits that cap a TCP stream
// below the bandwidth-delay product (field shape 1) and bound softirq work.
std::unique_ptr<Collector> MakeSockbufCollector(const CollectorContext& context);

}  // namespace fabric
