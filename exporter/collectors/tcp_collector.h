#pragma once

#include <memory>

#include "exporter/metrics/collector.h"

namespace fabric {

// Host-wide TCP counters from /proc/net/snmp and /proc/net/netstat:
// segments, retransmissions and the drop reasons that separate a lossy
// network from a host that cannot keep up.
std::unique_ptr<Collector> MakeTcpCollector(const CollectorContext& context);

}  // namespace fabric
