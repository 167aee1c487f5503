// Names the limit a storage result ran into (shape 12 of docs/bottleneck-shapes.md:
// throughput ≈ in-flight × block / latency means more parallelism would help).
#pragma once

#include "active-probes/storage/storage_probe.h"

namespace fabric::storage {

// Fills littles_law_ratio, queueing_factor, latency_bound and verdict from
// the measured fields.
void ApplyVerdict(StorageProbeResult& r);

}  // namespace fabric::storage
