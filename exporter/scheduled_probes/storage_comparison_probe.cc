#include "exporter/scheduled_probes/storage_comparison_probe.h"

namespace fabric {

using probe::ProbeValue;
using probe::Rung;
using probe::Verdict;

const probe::ProbeDeclaration& StorageComparisonDeclaration() {
  static const probe::ProbeDeclaration declaration{
      "storage",
      {Rung::kStorageReadBuffered, Rung::kStorageReadSharedFile, Rung::kStorageReadSeparateFiles,
       Rung::kStorageReadDepth1, Rung::kStorageWriteDepth1},
      {ProbeValue::kThroughput, ProbeValue::kBytes, ProbeValue::kWindow, ProbeValue::kStreams,
       ProbeValue::kIops, ProbeValue::kLatencyP50, ProbeValue::kLatencyP99,
       ProbeValue::kLatencyP999, ProbeValue::kReferenceThroughput},
      {Verdict::kLatencyBound, Verdict::kCpuBound},
  };
  return declaration;
}

storage::StorageProbeOptions StorageComparisonOptions(Rung rung,
                                                      const StorageLadderSettings& settings) {
  storage::StorageProbeOptions options;
  options.directory = settings.directory;
  options.mode = storage::Mode::kRead;
  options.duration_seconds = settings.duration_seconds;
  options.warmup_seconds = settings.warmup_seconds;
  options.size = settings.size_bytes;
  options.reserve_bytes = settings.reserve_bytes;
  switch (rung) {
    case Rung::kStorageReadBuffered:
      options.direct = false;
      break;
    case Rung::kStorageReadSharedFile:
      options.jobs = kStorageComparisonJobs;
      options.files = 0;  // One file, each job its own offset range.
      break;
    case Rung::kStorageReadSeparateFiles:
      options.jobs = kStorageComparisonJobs;
      options.files = kStorageComparisonJobs;
      // The same bytes as the shared file, spread over one file per job.
      options.size = std::max<uint64_t>(settings.size_bytes / kStorageComparisonJobs, 1 << 20);
      break;
    case Rung::kStorageWriteDepth1:
      options.mode = storage::Mode::kWrite;
      [[fallthrough]];
    case Rung::kStorageReadDepth1:
      options.queue_depth = 1;
      options.jobs = 1;
      options.calibrate = false;  // The run is the depth-1 measurement.
      break;
    default:
      break;
  }
  return options;
}

probe::Measurement StorageComparisonMeasurement(
    const storage::StorageProbeResult& result,
    const storage::StorageProbeResult* direct_reference) {
  probe::Measurement m = StorageMeasurement(result);
  m.values[ProbeValue::kStreams] = result.jobs;
  if (direct_reference != nullptr && direct_reference->direct) {
    m.values[ProbeValue::kReferenceThroughput] = direct_reference->bytes_per_second;
  }
  return m;
}

Result<std::vector<probe::Measurement>> StorageComparisonProbe::Run(
    const probe::ProbeContext& context) {
  const storage::StorageProbeOptions options = StorageComparisonOptions(rung_, settings_);
  auto result = storage::RunStorageProbe(options, context);
  if (!result.ok()) return Unexpected{result.error()};
  if (rung_ != Rung::kStorageReadBuffered) {
    return std::vector<probe::Measurement>{StorageComparisonMeasurement(*result)};
  }
  // The reference: the same read with O_DIRECT (the read rung's options),
  // right after, so both see the device in the same state.
  storage::StorageProbeOptions direct = options;
  direct.direct = true;
  auto reference = storage::RunStorageProbe(direct, context);
  if (!reference.ok()) return Unexpected{reference.error()};
  return std::vector<probe::Measurement>{StorageComparisonMeasurement(*result, &*reference)};
}

double StorageRunSeconds(const StorageLadderSettings& settings) {
  return settings.duration_seconds + settings.warmup_seconds + 5;
}

double StorageComparisonSeconds(Rung rung, const StorageLadderSettings& settings) {
  return (rung == Rung::kStorageReadBuffered ? 2 : 1) * StorageRunSeconds(settings);
}

}  // namespace fabric
