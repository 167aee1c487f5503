#include "exporter/scheduled_probes/path_rotation.h"

#include <map>

namespace fabric {

std::set<size_t> PathRotationTargets(const std::vector<std::string>& racks, size_t self,
                                     uint64_t turn) {
  // Racks in name order, each with its members in membership order: every
  // node computes the same rotation from the same fleet config.
  std::map<std::string, std::vector<size_t>> members;
  for (size_t i = 0; i < racks.size(); ++i) members[racks[i]].push_back(i);
  std::set<size_t> targets;
  uint64_t k = 0;
  for (const auto& [rack, in_rack] : members) {
    if ((k++ + turn) % kPathRackTurns != 0) continue;
    // Offset by `self` so that the nodes of a rack do not all check the same
    // member of another in the same turn.
    targets.insert(in_rack[(turn / kPathRackTurns + self) % in_rack.size()]);
  }
  targets.erase(self);
  return targets;
}

}  // namespace fabric
