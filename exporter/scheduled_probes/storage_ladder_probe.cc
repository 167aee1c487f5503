#include "exporter/scheduled_probes/storage_ladder_probe.h"

#include "exporter/scheduled_probes/probe_adapter.h"

namespace fabric {

using probe::ProbeValue;
using probe::Rung;
using probe::Verdict;

const probe::ProbeDeclaration& StorageRungDeclaration() {
  static const probe::ProbeDeclaration declaration{
      "storage",
      {Rung::kStorageRead, Rung::kStorageWrite},
      {ProbeValue::kThroughput, ProbeValue::kBytes, ProbeValue::kWindow, ProbeValue::kIops,
       ProbeValue::kLatencyP50, ProbeValue::kLatencyP99, ProbeValue::kLatencyP999},
      {Verdict::kLatencyBound, Verdict::kCpuBound},
  };
  return declaration;
}

probe::Measurement StorageMeasurement(const storage::StorageProbeResult& result) {
  probe::Measurement m;
  auto& v = m.values;
  v[ProbeValue::kThroughput] = result.bytes_per_second;
  v[ProbeValue::kBytes] = static_cast<double>(result.bytes);
  v[ProbeValue::kWindow] = result.window_seconds;
  v[ProbeValue::kIops] = result.iops;
  v[ProbeValue::kLatencyP50] = result.latency.p50;
  v[ProbeValue::kLatencyP99] = result.latency.p99;
  v[ProbeValue::kLatencyP999] = result.latency.p999;
  m.verdicts = {{Verdict::kLatencyBound, result.latency_bound},
                {Verdict::kCpuBound, result.cpu_saturated}};
  m.info["filesystem"] = result.filesystem.type;
  m.info["engine"] = result.engine;
  m.info["direct"] = result.direct ? "true" : "false";
  return m;
}

StorageRungProbe::StorageRungProbe(Rung rung, const StorageLadderSettings& settings)
    : rung_(rung), settings_(settings) {}

Result<std::vector<probe::Measurement>> StorageRungProbe::Run(const probe::ProbeContext& context) {
  storage::StorageProbeOptions options;
  options.directory = settings_.directory;
  options.mode = rung_ == Rung::kStorageWrite ? storage::Mode::kWrite : storage::Mode::kRead;
  options.duration_seconds = settings_.duration_seconds;
  options.warmup_seconds = settings_.warmup_seconds;
  options.size = settings_.size_bytes;
  options.reserve_bytes = settings_.reserve_bytes;
  auto result = storage::RunStorageProbe(options, context);
  if (!result.ok()) return Unexpected{result.error()};
  return std::vector<probe::Measurement>{StorageMeasurement(*result)};
}

std::vector<ProbeKey> StorageLadderKeys(const StorageLadderSettings& settings) {
  std::vector<ProbeKey> keys = KeysOf(Rung::kStorageRead, settings.directory);
  for (auto& key : KeysOf(Rung::kStorageWrite, settings.directory)) keys.push_back(key);
  return keys;
}

ProbeOutcome RunStorageLadder(const StorageLadderSettings& settings,
                              const probe::ProbeContext& context, ResultStore& store) {
  StorageRungProbe read(Rung::kStorageRead, settings);
  ProbeOutcome read_outcome = RunAndRecord(read, context, store);
  if (context.stop.stop_requested()) return ProbeOutcome::kFailure;
  StorageRungProbe write(Rung::kStorageWrite, settings);
  ProbeOutcome write_outcome = RunAndRecord(write, context, store);
  return read_outcome == ProbeOutcome::kSuccess && write_outcome == ProbeOutcome::kSuccess
             ? ProbeOutcome::kSuccess
             : ProbeOutcome::kFailure;
}

}  // namespace fabric
