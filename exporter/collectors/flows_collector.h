#pragma once

#include <memory>

#include "exporter/metrics/collector.h"

namespace fabric {

// Live transfer observer: the TCP flows on the fabric's local addresses (from
// sock_diag with TCP_INFO), their goodput between scrapes, what limits each
// (receiver window, send buffer, network, application) and which application
// it is (by well-known port), exported aggregated by peer x application x
// limiter. Touches no transfer: it only reads the kernel's socket table.
std::unique_ptr<Collector> MakeFlowsCollector(const CollectorContext& context);

}  // namespace fabric
