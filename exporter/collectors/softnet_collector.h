#pragma once

#include <memory>

#include "exporter/metrics/collector.h"

namespace fabric {

// Per-CPU packet-processing counters from /proc/net/softnet_stat: drops of the
// input backlog and time_squeeze (NAPI budget exhausted) are the host
// receive-path backpressure signals (field shape 15).
std::unique_ptr<Collector> MakeSoftnetCollector(const CollectorContext& context);

}  // namespace fabric
