// ProbeRuntime: the exporter's active side. From the fleet and the `probes`
// config it builds the scheduled probe tasks, runs them on the Scheduler,
// keeps their results in the ResultStore (saved to the state file after every
// run) and exposes them through the `probes` collector.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "active-probes/probe/probe.h"
#include "exporter/config/config_node.h"
#include "exporter/config/fleet.h"
#include "exporter/metrics/collector.h"
#include "exporter/path_mesh/mesh_settings.h"
#include "exporter/scheduled_probes/comparison_rotation.h"
#include "exporter/scheduled_probes/fleet_agreement.h"
#include "exporter/scheduled_probes/probe_budget.h"
#include "exporter/scheduled_probes/rdma_ladder_probe.h"
#include "exporter/scheduled_probes/result_store.h"
#include "exporter/scheduled_probes/scheduler.h"
#include "exporter/scheduled_probes/storage_ladder_probe.h"
#include "exporter/scheduled_probes/tcp_ladder_probe.h"

namespace fabric::probe {
class Responder;
}

namespace fabric {

class PathMesh;
class ProbeDetailSet;

struct PathProbeSettings {
  bool enabled = true;
  double interval_seconds = 60;
  double echo_timeout_seconds = 2;
};

struct ResponderSettings {
  bool enabled = false;             // Default: on when the TCP probe is.
  std::vector<std::string> listen;  // Default: this node's fabric address.
  std::vector<std::string> allow;   // Default: the fleet's addresses.
  uint32_t max_streams = 64;
  double max_duration_seconds = 120;
};

struct ProbeSettings {
  std::string state_file;  // Empty: results are not persisted.
  // A state file recorded elsewhere, reported in place of running any probe (fixture trees,
  // reviewing a captured node offline). Set: no probe runs and the responder stays off.
  std::string recording;
  // A single machine probing its own responder (first run, a demo, a laptop): the TCP, RDMA
  // rungs of every plan round go to this node's own address, with target "loopback". Needs a
  // fleet of one node.
  bool loopback = false;
  double max_splay_seconds = 300;
  // Probes are skipped while the fabric interface already carries more than
  // this fraction of its line rate in either direction (real traffic would
  // be disturbed and the numbers contaminated). 0 disables the check.
  double skip_when_busy_fraction = 0.5;
  // Share of each hour spent probing (requester and responder) inside which
  // the comparison runs rotate (probe_budget.h).
  double budget = 0.05;
  // How long a rung's best clean result stands on the ladder page (ProbeRecord::best): the
  // rule bundle's longBaselineWindow, set by the exporter's options; 0 keeps none.
  double best_window_seconds = 0;
  PathProbeSettings path;
  TcpLadderSettings tcp;
  StorageLadderSettings storage;
  RdmaLadderSettings rdma;
  ResponderSettings responder;
  MeshSettings mesh;  // The latency and loss mesh between bandwidth runs.
};

// Parses the `probes` section (defaults when absent). Throws ConfigError.
ProbeSettings ParseProbeSettings(const ConfigNode& section);

class ProbeRuntime {
 public:
  ProbeRuntime(const Fleet& fleet, const ProbeSettings& settings, const SysRoot& root);
  ~ProbeRuntime();

  // Whether the `probes` collector publishes fabric_fleet_peer_info (for the
  // peers its series name: a fleet above the detail bound); else the
  // constant series carry every peer's (AddFleetInfo).
  bool PublishesPeerInfo() const;

  // A config reload, before Start() and after `previous` stopped: takes its
  // results still configured, its calibrations, the budget spent in the last
  // hour and its meetings with each peer, as a restart with a state file
  // would, so a reload loses nothing the old config and the new share.
  void Adopt(const ProbeRuntime& previous);

  // Starts the embedded responder (when enabled) and the scheduler.
  Status Start();
  void Stop();

  // The `probes` collector for the scraper.
  std::unique_ptr<Collector> MakeCollector() const;
  // The latency mesh's collector (`mesh`), or null when the mesh is off.
  std::unique_ptr<Collector> MakeMeshCollector() const;
  // The fleet agreement's collector (`fleet`): the peers on another fleet
  // list; null while replaying a recording (no session opens).
  std::unique_ptr<Collector> MakeFleetCollector() const;

  // Every probe's latest result (the ladder page reads them).
  std::vector<ProbeRecord> Results() const { return store_.Snapshot(); }
  bool loopback() const { return settings_.loopback; }

 private:
  void Persist();
  // What a scheduled run gets: this node's roots, the task's cancellation, the clock.
  probe::ProbeContext Context(const CancelToken& token);
  // "fabric_busy" when the fabric interface carries real traffic above the
  // configured fraction of its speed, measured over one second.
  std::optional<std::string> FabricBusy();
  // After a plan round's rungs to `peer` (run since Unix time `since`): at
  // most one due comparison run in the rung's sessions, when the rung ran and
  // the budget and the round's remaining time allow it.
  void RunPairComparison(const FleetNode& self, const FleetNode& peer, double since,
                         const CancelToken& token);
  // After the storage rungs: the storage comparison slot whose turn it is.
  void RunStorageComparison(const CancelToken& token);
  // A retest slot: the bisection's pending retest (tcp_multi to the peer it
  // chose), when the budget and the time left before the next plan round allow.
  ProbeOutcome RunRetest(const FleetNode& self, const CancelToken& token);
  // A fleet above the detail bound: the path checks of the rotation
  // (ProbeDetailSet::PathTargets) in one task.
  ProbeOutcome RunPathRotation(const FleetNode& self, const CancelToken& token);
  // One path check to `peer`, its outcome reported to the detail set.
  ProbeOutcome CheckPath(const FleetNode& self, const FleetNode& peer, const CancelToken& token);

  Fleet fleet_;
  ProbeSettings settings_;
  SysRoot root_;
  ResultStore store_;
  std::unique_ptr<probe::Responder> responder_;
  RealClock clock_;
  ProbeBudget budget_;
  // Bytes the probes run here moved (ProbeContext::moved_bytes).
  std::atomic<uint64_t> moved_bytes_{0};
  FleetAgreement agreement_;
  ComparisonRotation pair_comparisons_;
  ComparisonRotation storage_comparisons_;
  // Plan meetings with each peer, counted from the pair's FirstMeeting (the
  // single-stream rung's turn); only the scheduler's thread touches it.
  std::map<std::string, uint64_t> meetings_;
  // Who gets per-pair series, the bisection, the path rotation; null while
  // replaying a recording (every record is then published).
  std::unique_ptr<ProbeDetailSet> detail_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<PathMesh> mesh_;       // Null when the mesh is off.
  std::vector<std::string> mesh_peers_;  // The mesh's targets (its peers()); empty when off.
};

}  // namespace fabric
