#include "exporter/scheduled_probes/probe_detail_set.h"

#include <cmath>

#include "active-probes/probe/error_kinds.h"
#include "exporter/metrics/fleet_info.h"
#include "exporter/scheduled_probes/path_rotation.h"

namespace fabric {

ProbeDetailSet::ProbeDetailSet(std::vector<std::string> names, std::vector<std::string> racks,
                               size_t self, std::shared_ptr<const TopologyPlan> plan,
                               double round_seconds, double path_interval_seconds,
                               std::unique_ptr<Bisection> bisection)
    : names_(std::move(names)),
      racks_(std::move(racks)),
      self_(self),
      plan_(std::move(plan)),
      round_seconds_(round_seconds),
      path_interval_seconds_(path_interval_seconds),
      all_detail_(names_.size() <= kAllDetailMaxPeers + 1),
      bisection_(std::move(bisection)) {
  auto rack_of = std::make_shared<std::map<std::string, std::string>>();
  for (size_t i = 0; i < names_.size() && i < racks_.size(); ++i) (*rack_of)[names_[i]] = racks_[i];
  rack_of_ = std::move(rack_of);
}

std::optional<size_t> ProbeDetailSet::IndexOf(const std::string& name) const {
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return i;
  }
  return std::nullopt;
}

void ProbeDetailSet::ObservePlan(size_t peer, const SendResult& result, double now) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (bisection_) bisection_->Observe(peer, result, now, false);
}

std::optional<size_t> ProbeDetailSet::RetestPeer(double now) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!bisection_) return std::nullopt;
  if (!pending_retest_) pending_retest_ = bisection_->NextRetest(now);
  return pending_retest_;
}

void ProbeDetailSet::ObserveRetest(size_t peer, const SendResult& result, double now) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (pending_retest_ == peer) pending_retest_.reset();
  if (bisection_) bisection_->Observe(peer, result, now, true);
}

std::vector<size_t> ProbeDetailSet::PathTargets(double now) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::set<size_t> targets;
  if (all_detail_) {
    for (size_t i = 0; i < names_.size(); ++i) targets.insert(i);
  } else {
    targets = DetailPeersLocked(now);
    const auto turn = static_cast<uint64_t>(std::floor(now / path_interval_seconds_));
    for (size_t peer : PathRotationTargets(racks_, self_, turn)) targets.insert(peer);
  }
  targets.erase(self_);
  path_checked_ = targets;
  return {targets.begin(), targets.end()};
}

void ProbeDetailSet::PathChecked(size_t peer, bool failed) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (failed) {
    flagged_.insert(peer);
  } else {
    flagged_.erase(peer);
  }
}

std::set<size_t> ProbeDetailSet::DetailPeersLocked(double now) const {
  std::set<size_t> peers;
  if (all_detail_) {
    for (size_t i = 0; i < names_.size(); ++i) peers.insert(i);
    peers.erase(self_);
    return peers;
  }
  const auto round = static_cast<uint64_t>(std::floor(now / round_seconds_));
  for (uint64_t r = round >= 2 ? round - 2 : 0; r <= round; ++r) {
    if (auto planned = plan_->Round(self_, r); planned && planned->initiator) {
      peers.insert(planned->peer);
    }
  }
  if (bisection_) {
    for (size_t peer : bisection_->Involved(now)) peers.insert(peer);
  }
  peers.insert(flagged_.begin(), flagged_.end());
  return peers;
}

std::set<size_t> ProbeDetailSet::DetailPeers(double now) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return DetailPeersLocked(now);
}

std::map<size_t, Suspect> ProbeDetailSet::Suspects(double now) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bisection_ ? bisection_->Suspects(now) : std::map<size_t, Suspect>{};
}

ProbeDetailPolicy ProbeDetailSet::Policy(double now) const {
  std::lock_guard<std::mutex> lock(mutex_);
  ProbeDetailPolicy policy;
  if (!all_detail_) {
    std::set<std::string> names;
    for (size_t peer : DetailPeersLocked(now)) names.insert(names_[peer]);
    // Path records of the peers the last path run checked (their period is
    // the path interval); every rung's records of the detail peers.
    std::set<std::string> checked;
    for (size_t peer : path_checked_) checked.insert(names_[peer]);
    policy.detail = [names = std::move(names), checked = std::move(checked)](const ProbeKey& key) {
      return key.probe == probe::Rung::kPath ? checked.count(key.target) > 0
                                             : names.count(key.target) > 0;
    };
    policy.rack_of = [rack_of = rack_of_](const std::string& target) {
      auto it = rack_of->find(target);
      return it == rack_of->end() ? std::string() : it->second;
    };
  }
  if (bisection_) {
    std::map<std::string, std::string> suspects;
    for (const auto& [peer, suspect] : bisection_->Suspects(now)) {
      suspects[names_[peer]] = std::string(SuspectName(suspect));
    }
    policy.suspects = [suspects = std::move(suspects)] { return suspects; };
  }
  return policy;
}

ProbeDetailPolicy ScrapePolicy(const ProbeDetailSet& detail, const Fleet& fleet,
                               const std::vector<std::string>& always, double now) {
  ProbeDetailPolicy policy = detail.Policy(now);
  if (!detail.all_detail()) {
    policy.peer_info = [&fleet, &always](const std::set<std::string>& targets, MetricSink& sink) {
      std::set<std::string> peers = targets;
      peers.insert(always.begin(), always.end());
      AddFleetPeerInfo(fleet, peers, sink);
    };
  }
  return policy;
}

std::optional<SendResult> SendResultSince(const ResultStore& store, const std::string& peer,
                                          double since) {
  auto record = store.Find({probe::Rung::kTcpMulti, peer, probe::Direction::kSend});
  if (!record || record->timestamp_seconds < since) return std::nullopt;
  if (!record->success) {
    // A peer too busy to answer says nothing about the path (the record keeps
    // the reason's label: its typed row gives the code).
    const probe::ErrorKind* kind = probe::KindOfReason(record->failure_reason);
    // Nor does a peer on another fleet list, which refused before any byte moved.
    if (kind != nullptr &&
        (kind->code == ErrorCode::kBusy || kind->code == ErrorCode::kFleetMismatch)) {
      return std::nullopt;
    }
    return SendResult{};
  }
  auto value = [&](probe::ProbeValue id) {
    auto it = record->values.find(id);
    return it == record->values.end() ? 0.0 : it->second;
  };
  return SendResult{value(probe::ProbeValue::kThroughput), value(probe::ProbeValue::kPathLineRate)};
}

bool PathCheckFailed(const ProbeRecord& record) {
  if (!record.success) return true;
  for (probe::ProbeValue id :
       {probe::ProbeValue::kEgressMatchesExpected, probe::ProbeValue::kJumboFramesPass}) {
    if (auto it = record.values.find(id); it != record.values.end() && it->second == 0) {
      return true;
    }
  }
  return false;
}

}  // namespace fabric
