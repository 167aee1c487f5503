// The storage comparison runs (COMPARISON_RUNS), each a record of its own on
// the storage rungs' directory: storage_read_buffered (the read rung through
// the page cache, and back to back with it the read rung's own direct-I/O
// read as its reference: one slot, so the ratio is not two moments'),
// storage_read_shared_file and storage_read_separate_files (J jobs over one
// shared file, and the same J jobs over J files: the same bytes in all),
// storage_read_depth1 / storage_write_depth1 (one job, one I/O in flight, the
// rungs' block size: the per-I/O latency).
#pragma once

#include <string>
#include <vector>

#include "active-probes/probe/probe.h"
#include "active-probes/storage/storage_probe.h"
#include "exporter/scheduled_probes/storage_ladder_probe.h"

namespace fabric {

// Jobs of the shared-file and separate-files runs.
inline constexpr uint32_t kStorageComparisonJobs = 4;

const probe::ProbeDeclaration& StorageComparisonDeclaration();

// Pure: what the storage probe is asked for each comparison rung.
storage::StorageProbeOptions StorageComparisonOptions(probe::Rung rung,
                                                      const StorageLadderSettings& settings);

// Pure: a comparison run's record: the rungs' StorageMeasurement with the
// jobs as streams and, given the direct read of the same slot (the buffered
// comparison), its throughput as reference_throughput; a reference read that
// fell back to the page cache (no O_DIRECT here) is none.
probe::Measurement StorageComparisonMeasurement(
    const storage::StorageProbeResult& result,
    const storage::StorageProbeResult* direct_reference = nullptr);

class StorageComparisonProbe : public probe::Probe {
 public:
  StorageComparisonProbe(probe::Rung rung, const StorageLadderSettings& settings)
      : rung_(rung), settings_(settings) {}
  const probe::ProbeDeclaration& declaration() const override {
    return StorageComparisonDeclaration();
  }
  probe::Rung rung() const override { return rung_; }
  std::string target() const override { return settings_.directory; }
  Result<std::vector<probe::Measurement>> Run(const probe::ProbeContext& context) override;

 private:
  probe::Rung rung_;
  StorageLadderSettings settings_;
};

// Seconds one storage run of the settings takes at most (file creation
// included), for the budget.
double StorageRunSeconds(const StorageLadderSettings& settings);
// Seconds one comparison rung takes at most: its runs (the buffered read
// and its direct reference: two).
double StorageComparisonSeconds(probe::Rung rung, const StorageLadderSettings& settings);

}  // namespace fabric
