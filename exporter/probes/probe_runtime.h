// ProbeRuntime: the exporter's active side. From the fleet and the `probes`
// config it builds the scheduled probe tasks, runs them on the Scheduler,
// keeps their results in the ResultStore (saved to the state file after every
// run) and exposes them through the `probes` collector.
#pragma once

#include <memory>
#include <string>

#include "exporter/core/collector.h"
#include "exporter/core/config_node.h"
#include "exporter/fleet.h"
#include "exporter/probes/result_store.h"
#include "exporter/probes/scheduler.h"

namespace fabric {

struct PathProbeSettings {
  bool enabled = true;
  double interval_seconds = 60;
  double echo_timeout_seconds = 2;
};

struct ProbeSettings {
  std::string state_file;  // Empty: results are not persisted.
  double max_splay_seconds = 300;
  PathProbeSettings path;
};

// Parses the `probes` section (defaults when absent). Throws ConfigError.
ProbeSettings ParseProbeSettings(const ConfigNode& section);

class ProbeRuntime {
 public:
  ProbeRuntime(const Fleet& fleet, const ProbeSettings& settings);
  ~ProbeRuntime();

  void Start();
  void Stop();

  // The `probes` collector for the scraper.
  std::unique_ptr<Collector> MakeCollector() const;

 private:
  void Persist();

  Fleet fleet_;
  ProbeSettings settings_;
  ResultStore store_;
  RealClock clock_;
  std::unique_ptr<Scheduler> scheduler_;
};

}  // namespace fabric
