// The probe plan: which peer this node probes in a given round, derived only
// from the fleet membership and the round number, so every node computes the
// same plan without a coordinator.
//
// Each round is a perfect matching of the fleet (the round-robin "circle
// method"): every node is in at most one pair, so no node runs two probes at
// once, as requester or as responder, and no responder is asked twice in the
// same slot. Over 2 x (M - 1) rounds (M = fleet size rounded up to even)
// every ordered pair (A probes B) occurs exactly once: the first M - 1 rounds
// cover each unordered pair once, the next M - 1 repeat them with the roles
// swapped. Probe load per node stays one probe per round however large the
// fleet grows, unlike an N^2 full mesh.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fabric {

struct PlannedProbe {
  size_t peer = 0;         // Index into the sorted membership.
  bool initiator = false;  // True: this node requests; false: it responds.
};

// Rounds after which every ordered pair has been probed once.
uint64_t PlanPeriodRounds(size_t fleet_size);

// This node's pairing in `round`, or nullopt when it sits the round out (odd
// fleets) or is alone. `self` indexes the membership sorted by name; callers
// sort it so that every node agrees.
std::optional<PlannedProbe> PlanRound(size_t fleet_size, size_t self, uint64_t round);

// Where a member sits: its rack (or leaf switch) and plane (or rail); empty
// when the fleet config does not say.
struct PlanMember {
  std::string rack;
  std::string plane;
};

// The topology-aware plan (the levels Pingmesh uses): still one perfect
// matching per round, computed by every node from the membership and the
// round number alone, so still coordinator-free and never two probes on one
// node at once; each node's work stays one probe per round whatever N.
//
// Planes are separate fabrics: pairs never cross planes, and every plane is
// measured in every round. Within a plane, when it has more than one rack,
// rounds alternate between two levels:
//  - even rounds, intra-rack: the circle method over each rack's members, so
//    each ordered pair of a rack comes once every 2 x PlanPeriodRounds(rack
//    size) rounds;
//  - odd rounds, inter-rack: the circle method over the plane's racks pairs
//    rack a with rack b, and b's members with a's by a shift that advances
//    each time the pair meets, so every ordered rack pair is measured (by
//    min(|a|, |b|) node pairs at once) every 2 x PlanPeriodRounds(racks)
//    rounds, and every node pair across racks eventually.
// A plane of one rack (no topology configured) is the plain circle method.
class TopologyPlan {
 public:
  // `members` in membership order (sorted by name, as Fleet::nodes is).
  explicit TopologyPlan(const std::vector<PlanMember>& members);

  size_t size() const { return members_.size(); }
  // This node's pairing in `round`, or nullopt when it sits the round out.
  std::optional<PlannedProbe> Round(size_t self, uint64_t round) const;
  // Rounds within which `self` initiates a probe to `peer` at least once (the
  // planned period of its records of `peer`); 0 when the plan never pairs
  // them (different planes).
  uint64_t PairPeriodRounds(size_t self, size_t peer) const;
  // Rounds within which every ordered pair of racks of a plane, a rack with
  // itself included, has been measured by at least one node pair.
  uint64_t RackPairPeriodRounds() const;
  const std::string& rack(size_t member) const { return members_[member].rack; }

 private:
  struct Position {
    size_t plane = 0;
    size_t rack = 0;   // Index of the rack within its plane.
    size_t local = 0;  // Index within its rack.
  };
  std::vector<PlanMember> members_;
  std::vector<Position> positions_;
  // plane -> rack -> members (global indices, in membership order).
  std::vector<std::vector<std::vector<size_t>>> planes_;
};

}  // namespace fabric
