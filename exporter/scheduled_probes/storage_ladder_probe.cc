#include "exporter/scheduled_probes/storage_ladder_probe.h"

#include <cerrno>
#include <chrono>
#include <cstring>

#include "active-probes/storage/storage_probe.h"
#include "common/log.h"

namespace fabric {
namespace {

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// no_space: the filesystem filled up under the probe (ENOSPC), or had too
// little room to start without eating the reserve; error: anything else.
std::string FailureReason(const std::string& message) {
  if (message.find("ENOSPC") != std::string::npos ||
      message.find(std::strerror(ENOSPC)) != std::string::npos ||
      message.find("(--reserve)") != std::string::npos) {
    return "no_space";
  }
  return "error";
}

bool RunRung(const char* rung, storage::Mode mode, const StorageLadderSettings& settings,
             const std::string& procfs, const std::atomic<bool>* stop, ResultStore& store) {
  storage::StorageProbeOptions options;
  options.directory = settings.directory;
  options.mode = mode;
  options.duration_seconds = settings.duration_seconds;
  options.warmup_seconds = settings.warmup_seconds;
  options.size = settings.size_bytes;
  options.reserve_bytes = settings.reserve_bytes;
  options.stop = stop;
  options.procfs = procfs;
  const auto start = std::chrono::steady_clock::now();
  auto result = storage::RunStorageProbe(options);
  ProbeRecord record;
  record.key = {rung, settings.directory, ""};
  record.timestamp_seconds = WallSeconds();
  record.duration_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!result.ok()) {
    if (stop != nullptr && stop->load()) {
      // Shutdown: the files are gone and the cut-short run says nothing.
      log::Info("storage probe interrupted", {{"probe", rung}});
      return false;
    }
    log::Warn("storage probe failed", {{"probe", rung}, {"err", result.error().message}});
    record.failure_reason = FailureReason(result.error().message);
    record.failure_detail = result.error().message;
    store.Record(std::move(record));
    return false;
  }
  record.success = true;
  auto& v = record.values;
  v["throughput_bytes_per_second"] = result->bytes_per_second;
  v["bytes"] = static_cast<double>(result->bytes);
  v["window_seconds"] = result->window_seconds;
  v["iops"] = result->iops;
  v["latency_p50_seconds"] = result->latency.p50;
  v["latency_p99_seconds"] = result->latency.p99;
  v["latency_p999_seconds"] = result->latency.p999;
  record.verdicts = {{"latency_bound", result->latency_bound},
                     {"cpu_bound", result->cpu_saturated}};
  record.info["filesystem"] = result->filesystem.type;
  record.info["engine"] = result->engine;
  record.info["direct"] = result->direct ? "true" : "false";
  store.Record(std::move(record));
  return true;
}

}  // namespace

std::vector<ProbeKey> StorageLadderKeys(const StorageLadderSettings& settings) {
  return {{"storage_read", settings.directory, ""}, {"storage_write", settings.directory, ""}};
}

ProbeOutcome RunStorageLadder(const StorageLadderSettings& settings, const std::string& procfs,
                              const std::atomic<bool>* stop, ResultStore& store) {
  bool read = RunRung("storage_read", storage::Mode::kRead, settings, procfs, stop, store);
  if (stop != nullptr && stop->load()) return ProbeOutcome::kFailure;
  bool write = RunRung("storage_write", storage::Mode::kWrite, settings, procfs, stop, store);
  return read && write ? ProbeOutcome::kSuccess : ProbeOutcome::kFailure;
}

}  // namespace fabric
