// The scheduled storage rungs of the ladder: a sequential O_DIRECT read and
// write of the configured directory (probe=storage_read|storage_write,
// target=the directory), with the storage probe's latency-bound and CPU
// verdicts.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "exporter/scheduled_probes/result_store.h"
#include "exporter/scheduled_probes/scheduler.h"

namespace fabric {

struct StorageLadderSettings {
  bool enabled = false;
  std::string directory;
  double interval_seconds = 3600;
  double duration_seconds = 5;
  double warmup_seconds = 1;
  uint64_t size_bytes = 1ull << 30;     // Per probe file.
  uint64_t reserve_bytes = 1ull << 30;  // Free space the write must leave.
};

std::vector<ProbeKey> StorageLadderKeys(const StorageLadderSettings& settings);

// Runs the read and the write rung and records both. `stop` aborts a run
// (the probe removes its files).
ProbeOutcome RunStorageLadder(const StorageLadderSettings& settings, const std::string& procfs,
                              const std::atomic<bool>* stop, ResultStore& store);

}  // namespace fabric
