#pragma once

#include <memory>

#include "common/read/sysroot.h"
#include "exporter/metrics/collector.h"

namespace fabric {

// The exporter's own cost as every Prometheus exporter publishes it
// (process_cpu_seconds_total, process_resident_memory_bytes, process_open_fds,
// ...), so an operator sees what the instrument takes from the node. Always
// on, outside the collector table: it reads `self`, the exporter's own
// process, under `root` (the procfs the exporter runs under, not a
// --path.procfs host mount).
std::unique_ptr<Collector> MakeProcessCollector(SysRoot root);

}  // namespace fabric
