#pragma once

#include <memory>

#include "exporter/metrics/collector.h"

namespace fabric {

// Network interfaces: link state and standard counters from sysfs, and from
// ethtool the driver, pause settings and statistics, channels, rings, and the
// driver statistics that diagnose fabric bottlenecks, typed (see
// common/parse/driver_stats.h).
std::unique_ptr<Collector> MakeNetdevCollector(const CollectorContext& context);

}  // namespace fabric
