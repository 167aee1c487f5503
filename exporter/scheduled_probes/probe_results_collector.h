// Exposes the ResultStore and the scheduler's counters. Values a probe
// reports become fabric_probe_<name>{probe,target,direction}, name and HELP
// from the value catalogue (active-probes/probe/values.h), so a probe cannot
// publish an undocumented series.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string_view>

#include "exporter/metrics/collector.h"
#include "exporter/scheduled_probes/probe_budget.h"
#include "exporter/scheduled_probes/result_store.h"
#include "exporter/scheduled_probes/scheduler.h"

namespace fabric {

// The families every record has besides its values (the run's outcome, its
// info and verdicts, the scheduler's counters), for the catalogue tooling reads.
std::span<const std::string_view> ProbeRecordFamilies();

// The probe budget as exported: the configured share of each hour, the share
// the last hour spent, and what probing cost this node in each role.
struct BudgetState {
  double budget_ratio = 0;
  double busy_ratio = 0;
  ProbeSpending requester;
  ProbeSpending responder;
};

// `budget` may be empty (no budget series).
std::unique_ptr<Collector> MakeProbeResultsCollector(
    const ResultStore& store, std::function<std::map<std::string, ProbeTaskStats>()> stats,
    std::function<BudgetState()> budget = nullptr);

// Bounded cardinality at fleet scale: per-pair series only for the peers
// `detail` accepts (recent plan peers, flagged, bisection peers); every other
// record is folded into per-node summaries per target rack,
// fabric_probe_rack_throughput_bytes_per_second{probe,direction,target_rack,
// stat="min|median|max"} and fabric_probe_rack_paths{probe,direction,
// target_rack}, so the series count is bounded by the detail set and the
// number of racks, not by the fleet size.
struct ProbeDetailPolicy {
  // Whether the record gets per-pair series; unset: every record does.
  std::function<bool(const ProbeKey& key)> detail;
  // The rack of `target` for the summaries ("" when unknown).
  std::function<std::string(const std::string& target)> rack_of;
  // fabric_probe_suspect: target -> "self", "peer" or "path" (bisection).
  std::function<std::map<std::string, std::string>()> suspects;
  // fabric_fleet_peer_info for the targets this scrape names (its per-pair
  // records and suspects), so a node above the detail bound publishes the
  // join series of those peers only; unset: the constant series carry every
  // peer's.
  std::function<void(const std::set<std::string>& targets, MetricSink& sink)> peer_info;
};

std::unique_ptr<Collector> MakeProbeResultsCollector(
    const ResultStore& store, std::function<std::map<std::string, ProbeTaskStats>()> stats,
    ProbeDetailPolicy policy, std::function<BudgetState()> budget = nullptr);

// The policy as of each scrape: `policy` is called once per Collect (a
// running node's detail set changes with every round; ProbeDetailSet::Policy).
std::unique_ptr<Collector> MakeProbeResultsCollector(
    const ResultStore& store, std::function<std::map<std::string, ProbeTaskStats>()> stats,
    std::function<ProbeDetailPolicy()> policy, std::function<BudgetState()> budget = nullptr);

}  // namespace fabric
