#include "exporter/scheduled_probes/comparison_rotation.h"

namespace fabric {

std::optional<size_t> ComparisonRotation::Due(
    const std::string& target, const std::function<bool(const Slot&)>& applies) const {
  if (slots_.empty()) return std::nullopt;
  auto turn = turn_.find(target);
  const size_t first = turn == turn_.end() ? 0 : turn->second;
  for (size_t i = 0; i < slots_.size(); ++i) {
    const size_t index = (first + i) % slots_.size();
    if (applies(slots_[index])) return index;
  }
  return std::nullopt;
}

void ComparisonRotation::Ran(const std::string& target, size_t index) {
  if (slots_.empty()) return;
  turn_[target] = (index + 1) % slots_.size();
}

}  // namespace fabric
