// Path-check rotation at fleet scale: which peers one run of the path rung
// checks besides the node's detail peers. Each turn (one path interval) takes
// a third of the racks, and of each one member in turn, so a route into every
// rack is checked every kPathRackTurns intervals while the checks per run stay
// bounded by the number of racks, not the fleet size. Pure over the membership
// and the turn number.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace fabric {

// Turns after which every rack has had one member checked.
inline constexpr uint64_t kPathRackTurns = 3;

// The members checked in `turn` (never `self`). `racks[i]`: member i's rack,
// in membership order; members without a rack form the rack "".
std::set<size_t> PathRotationTargets(const std::vector<std::string>& racks, size_t self,
                                     uint64_t turn);

}  // namespace fabric
