// The scheduled storage rungs of the ladder: a sequential O_DIRECT read and
// write of the configured directory (probe=storage_read|storage_write,
// target=the directory), with the storage probe's latency-bound and CPU
// verdicts, recorded through the probe seam.
#pragma once

#include <string>
#include <vector>

#include "active-probes/probe/probe.h"
#include "active-probes/storage/storage_probe.h"
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

// What the storage rungs produce.
const probe::ProbeDeclaration& StorageRungDeclaration();
// A run's record (pure).
probe::Measurement StorageMeasurement(const storage::StorageProbeResult& result);

// One storage rung: storage_read or storage_write of the directory.
class StorageRungProbe : public probe::Probe {
 public:
  StorageRungProbe(probe::Rung rung, const StorageLadderSettings& settings);
  const probe::ProbeDeclaration& declaration() const override { return StorageRungDeclaration(); }
  probe::Rung rung() const override { return rung_; }
  std::string target() const override { return settings_.directory; }
  Result<std::vector<probe::Measurement>> Run(const probe::ProbeContext& context) override;

 private:
  probe::Rung rung_;
  StorageLadderSettings settings_;
};

std::vector<ProbeKey> StorageLadderKeys(const StorageLadderSettings& settings);

// Runs the read and the write rung and records both. The context's stop
// request aborts a run (the probe removes its files) and records nothing.
ProbeOutcome RunStorageLadder(const StorageLadderSettings& settings,
                              const probe::ProbeContext& context, ResultStore& store);

}  // namespace fabric
