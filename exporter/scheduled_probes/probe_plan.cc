#include "exporter/scheduled_probes/probe_plan.h"

#include <algorithm>
#include <map>

namespace fabric {
namespace {

// The fleet padded to an even size; the extra "node" is a bye.
size_t EvenSize(size_t fleet_size) { return fleet_size + (fleet_size % 2); }

}  // namespace

uint64_t PlanPeriodRounds(size_t fleet_size) {
  if (fleet_size < 2) return 1;
  return 2 * (EvenSize(fleet_size) - 1);
}

std::optional<PlannedProbe> PlanRound(size_t fleet_size, size_t self, uint64_t round) {
  if (fleet_size < 2 || self >= fleet_size) return std::nullopt;
  const size_t m = EvenSize(fleet_size);
  const uint64_t rotation = round % (m - 1);
  const bool swapped = (round / (m - 1)) % 2 == 1;
  // Circle method: node m-1 stays fixed and meets `rotation`; the others sit
  // on a circle where positions rotation+i and rotation-i meet.
  size_t partner;
  bool first_of_pair;  // Whether `self` is the pair's first member.
  if (self == m - 1) {
    partner = rotation;
    first_of_pair = true;
  } else if (self == rotation) {
    partner = m - 1;
    first_of_pair = false;
  } else {
    const size_t n = m - 1;
    // self = rotation + i or rotation - i (mod n) for some i in 1..n/2.
    size_t offset = (self + n - rotation) % n;  // i or n - i
    if (offset <= n / 2) {
      partner = (rotation + n - offset) % n;
      first_of_pair = true;
    } else {
      partner = (rotation + (n - offset)) % n;
      first_of_pair = false;
    }
  }
  if (partner >= fleet_size) return std::nullopt;  // A bye this round.
  return PlannedProbe{partner, first_of_pair != swapped};
}

TopologyPlan::TopologyPlan(const std::vector<PlanMember>& members)
    : members_(members), positions_(members.size()) {
  // Planes and racks by name, so every node numbers them alike.
  std::map<std::string, std::map<std::string, std::vector<size_t>>> grouped;
  for (size_t i = 0; i < members.size(); ++i) {
    grouped[members[i].plane][members[i].rack].push_back(i);
  }
  for (const auto& [plane_name, racks] : grouped) {
    auto& plane = planes_.emplace_back();
    for (const auto& [rack_name, rack_members] : racks) {
      for (size_t local = 0; local < rack_members.size(); ++local) {
        positions_[rack_members[local]] = {planes_.size() - 1, plane.size(), local};
      }
      plane.push_back(rack_members);
    }
  }
}

std::optional<PlannedProbe> TopologyPlan::Round(size_t self, uint64_t round) const {
  if (self >= members_.size()) return std::nullopt;
  const Position& at = positions_[self];
  const auto& racks = planes_[at.plane];
  const auto& own = racks[at.rack];
  const bool intra = racks.size() == 1 || round % 2 == 0;
  const uint64_t level_round = racks.size() == 1 ? round : round / 2;
  if (intra) {
    auto planned = PlanRound(own.size(), at.local, level_round);
    if (!planned) return std::nullopt;
    return PlannedProbe{own[planned->peer], planned->initiator};
  }
  auto rack_pair = PlanRound(racks.size(), at.rack, level_round);
  if (!rack_pair) return std::nullopt;  // The rack's bye in this pass.
  const auto& other = racks[rack_pair->peer];
  // The shift advances once per full pass of the rack-level plan, so over
  // max(|a|, |b|) passes every member of a meets every member of b.
  const size_t span = std::max(own.size(), other.size());
  const uint64_t shift = (level_round / PlanPeriodRounds(racks.size())) % span;
  size_t peer_local;
  if (at.rack < rack_pair->peer) {
    peer_local = (at.local + shift) % span;
  } else {
    peer_local = (at.local + span - shift) % span;
  }
  if (peer_local >= other.size()) return std::nullopt;  // Unmatched in the larger rack.
  return PlannedProbe{other[peer_local], rack_pair->initiator};
}

uint64_t TopologyPlan::PairPeriodRounds(size_t self, size_t peer) const {
  if (self >= members_.size() || peer >= members_.size() || self == peer) return 0;
  const Position& a = positions_[self];
  const Position& b = positions_[peer];
  if (a.plane != b.plane) return 0;
  const auto& racks = planes_[a.plane];
  const uint64_t levels = racks.size() == 1 ? 1 : 2;
  if (a.rack == b.rack) return levels * PlanPeriodRounds(racks[a.rack].size());
  const size_t span = std::max(racks[a.rack].size(), racks[b.rack].size());
  return levels * PlanPeriodRounds(racks.size()) * span;
}

uint64_t TopologyPlan::RackPairPeriodRounds() const {
  uint64_t longest = 1;
  for (const auto& racks : planes_) {
    const uint64_t levels = racks.size() == 1 ? 1 : 2;
    // A rack's own pairs are measured in its first intra-rack round.
    longest = std::max(longest, racks.size() == 1 ? 1 : levels * PlanPeriodRounds(racks.size()));
  }
  return longest;
}

}  // namespace fabric
