// ProbeDetailSet: which peers a node publishes per-pair series for, and what
// it knows that decides it (issue 22: bounded cardinality at fleet scale).
// The exporter's ProbeRuntime and the fleet simulator (tests/fleet) both run
// it, so the simulator's figures describe the code the exporter runs.
//
// Detail peers: this and the last two plan rounds' peers, the bisection's
// open cases, retest peers and blamed targets (bisection.h), and peers whose
// last path check failed; path records only of the peers the last path run
// checked. Every other record is folded into the per-rack summaries of the
// `probes` collector (ProbeDetailPolicy). A fleet of at most
// kAllDetailMaxPeers peers (every fleet operators start with, the loopback
// node, the three-node stacks) keeps per-pair series for every peer and
// checks every path every interval: the bound only applies once per-pair
// series would grow with the fleet.
//
// Thread safety: the scheduler's thread reports results while scrape threads
// read the policy; one mutex guards the state (never held across a probe run).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "exporter/config/fleet.h"
#include "exporter/scheduled_probes/bisection.h"
#include "exporter/scheduled_probes/probe_plan.h"
#include "exporter/scheduled_probes/probe_results_collector.h"
#include "exporter/scheduled_probes/result_store.h"

namespace fabric {

class ProbeDetailSet {
 public:
  // Fleets with at most this many peers (N - 1) publish every peer in detail.
  // Each peer costs about 120 series, so 16 peers stay near 2,000, well inside
  // the 5,000 per node of the fleet-scale target.
  static constexpr size_t kAllDetailMaxPeers = 16;

  // `names` and `racks`: the membership in order (Fleet::nodes); `self`
  // indexes it. `plan`: the plan the rounds run. `bisection`: null when this
  // node bisects nothing (a loopback node).
  ProbeDetailSet(std::vector<std::string> names, std::vector<std::string> racks, size_t self,
                 std::shared_ptr<const TopologyPlan> plan, double round_seconds,
                 double path_interval_seconds, std::unique_ptr<Bisection> bisection);

  // Every peer is a detail peer (a fleet of at most kAllDetailMaxPeers peers).
  bool all_detail() const { return all_detail_; }
  bool bisecting() const { return bisection_ != nullptr; }
  std::optional<size_t> IndexOf(const std::string& name) const;

  // A plan round's tcp_multi send result to `peer` at Unix time `now`.
  void ObservePlan(size_t peer, const SendResult& result, double now);
  // The peer the retest slot at `now` runs against: the one asked for earlier
  // whose run has not happened yet (the peer was busy), else the bisection's
  // next, if a case needs one.
  std::optional<size_t> RetestPeer(double now);
  // The retest's result (as ObservePlan); `peer` is no longer pending.
  void ObserveRetest(size_t peer, const SendResult& result, double now);

  // The peers the path run at `now` checks (remembered as the last run's):
  // every peer in a small fleet; else the detail peers and the rack rotation
  // (path_rotation.h), so at most the detail set plus a third of the racks.
  std::vector<size_t> PathTargets(double now);
  // A path check's outcome: a failed one makes `peer` a detail peer until
  // its path checks out again.
  void PathChecked(size_t peer, bool failed);

  std::set<size_t> DetailPeers(double now) const;
  std::map<size_t, Suspect> Suspects(double now) const;
  // A snapshot for one scrape: the detail sets and blames as of `now`.
  ProbeDetailPolicy Policy(double now) const;

 private:
  std::set<size_t> DetailPeersLocked(double now) const;

  const std::vector<std::string> names_;
  const std::vector<std::string> racks_;
  const size_t self_;
  const std::shared_ptr<const TopologyPlan> plan_;
  const double round_seconds_;
  const double path_interval_seconds_;
  const bool all_detail_;
  std::shared_ptr<const std::map<std::string, std::string>> rack_of_;  // Name -> rack.

  mutable std::mutex mutex_;  // Guards everything below.
  std::unique_ptr<Bisection> bisection_;
  std::optional<size_t> pending_retest_;
  std::set<size_t> flagged_;       // Peers whose last path check failed.
  std::set<size_t> path_checked_;  // The peers of the last path run.
};

// What the exporter's `probes` collector publishes as of `now` (the exporter
// and the fleet simulator alike): `detail`'s policy and, above the detail
// bound, fabric_fleet_peer_info for the peers the scrape names and for
// `always` (the mesh's targets), so the join series do not grow with the
// fleet either. `fleet` and `always` must outlive the policy.
ProbeDetailPolicy ScrapePolicy(const ProbeDetailSet& detail, const Fleet& fleet,
                               const std::vector<std::string>& always, double now);

// The bisection's input from a run that started at Unix time `since`: the
// tcp_multi send throughput to `peer` (0 when the run failed) and the path's
// line rate the run read; nullopt when it recorded nothing new or the peer's
// responder was busy (no verdict on the path).
std::optional<SendResult> SendResultSince(const ResultStore& store, const std::string& peer,
                                          double since);

// Whether a path record shows a failed check: no route, the route leaves
// through another interface than the fleet config expects, or a full-size
// frame does not get through.
bool PathCheckFailed(const ProbeRecord& record);

}  // namespace fabric
