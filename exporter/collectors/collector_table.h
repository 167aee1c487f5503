// The explicit registry of every collector the exporter has. Adding a
// collector means adding a row here; flags, config validation, --help and the
// landing page all come from this table.
#pragma once

#include <vector>

#include "exporter/metrics/collector.h"

namespace fabric {

const std::vector<CollectorSpec>& CollectorTable();

}  // namespace fabric
