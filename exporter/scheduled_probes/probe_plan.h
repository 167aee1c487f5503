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

}  // namespace fabric
