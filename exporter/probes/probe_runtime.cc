#include "exporter/probes/probe_runtime.h"

#include <chrono>
#include <random>

#include "common/log.h"
#include "exporter/probes/path_probe.h"
#include "exporter/probes/probe_results_collector.h"

namespace fabric {
namespace {

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

ProbeSettings ParseProbeSettings(const ConfigNode& section) {
  ProbeSettings settings;
  section.ExpectMapWithKeys({"state_file", "max_splay", "path"});
  settings.state_file = section.String("state_file").value_or("");
  settings.max_splay_seconds =
      section.DurationSeconds("max_splay", 0, 86400).value_or(settings.max_splay_seconds);
  ConfigNode path = section.Child("path");
  path.ExpectMapWithKeys({"enabled", "interval", "echo_timeout"});
  settings.path.enabled = path.Bool("enabled").value_or(true);
  settings.path.interval_seconds =
      path.DurationSeconds("interval", 1, 86400).value_or(settings.path.interval_seconds);
  settings.path.echo_timeout_seconds =
      path.DurationSeconds("echo_timeout", 0.1, 60).value_or(settings.path.echo_timeout_seconds);
  return settings;
}

ProbeRuntime::ProbeRuntime(const Fleet& fleet, const ProbeSettings& settings)
    : fleet_(fleet), settings_(settings) {
  std::vector<ProbeTask> tasks;
  const FleetNode self = fleet_.Self();
  for (const FleetNode& peer : fleet_.nodes) {
    if (peer.name == self.name || !settings_.path.enabled) continue;
    store_.Expect({"path", peer.name, ""});
    ProbeTask task;
    task.probe = "path";
    task.target = peer.name;
    task.timing.interval = Seconds(settings_.path.interval_seconds);
    task.timeout = Seconds(settings_.path.echo_timeout_seconds + 5);
    auto echo_timeout =
        std::chrono::milliseconds(static_cast<int64_t>(settings_.path.echo_timeout_seconds * 1000));
    task.run = [this, self, peer, echo_timeout](const CancelToken&) {
      auto start = std::chrono::steady_clock::now();
      ProbeRecord record = RunPathProbe(self, peer, echo_timeout);
      record.duration_seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      record.timestamp_seconds = WallSeconds();
      if (!record.failure_detail.empty()) {
        log::Warn("path probe", {{"peer", peer.name}, {"detail", record.failure_detail}});
      }
      bool success = record.success;
      store_.Record(std::move(record));
      Persist();
      return success ? ProbeOutcome::kSuccess : ProbeOutcome::kFailure;
    };
    tasks.push_back(std::move(task));
  }
  if (!settings_.state_file.empty()) {
    Status loaded = store_.Load(settings_.state_file);
    if (!loaded.ok() && !loaded.absent()) {
      log::Warn("ignoring the probe state file", {{"err", loaded.error().message}});
    }
  }
  scheduler_ = std::make_unique<Scheduler>(
      std::move(tasks), clock_, Seconds(settings_.max_splay_seconds), std::random_device{}());
}

ProbeRuntime::~ProbeRuntime() { Stop(); }

void ProbeRuntime::Start() { scheduler_->Start(); }

void ProbeRuntime::Stop() { scheduler_->Stop(); }

void ProbeRuntime::Persist() {
  if (settings_.state_file.empty()) return;
  Status saved = store_.Save(settings_.state_file);
  if (!saved.ok()) log::Warn("cannot save the probe state", {{"err", saved.error().message}});
}

std::unique_ptr<Collector> ProbeRuntime::MakeCollector() const {
  return MakeProbeResultsCollector(store_, [this] { return scheduler_->Stats(); });
}

}  // namespace fabric
