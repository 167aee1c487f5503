#pragma once

#include <memory>

#include "exporter/metrics/collector.h"

namespace fabric {

// Collective bus bandwidth from the files NCCL's own tools leave in a
// configured directory (collectors.collective.directory): NCCL Inspector's
// Prometheus textfiles (*.prom) and nccl-tests' JSON output (*.json, and the
// *.json.N it writes beside an existing file). Per source, collective, message
// size bucket and scope (inter_node or intra_node), the best bus bandwidth and
// the age of that measurement: the collective rung of the ladder, judged
// against the RDMA rung of the node's NICs by the rules. Bounded: at most
// max_files files (the newest), each at most max_file_bytes, at most
// max_series series (the rest folded into collective="other"); files and
// measurements older than max_age are left out; a broken file fails alone,
// counted by reason.
std::unique_ptr<Collector> MakeCollectiveCollector(const CollectorContext& context);

}  // namespace fabric
