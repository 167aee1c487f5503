#pragma once

#include <memory>

#include "exporter/metrics/collector.h"

namespace fabric {

// PCIe links of NICs, GPUs and NVMe drives and of every port between them
// and the root port: speed, width, usable bandwidth, the narrowest hop of
// each path, downtrained hops, slot-limited paths (field shape 14) and AER
// error counters.
std::unique_ptr<Collector> MakePcieCollector(const CollectorContext& context);

}  // namespace fabric
