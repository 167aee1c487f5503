// ComparisonRotation: which comparison run (COMPARISON_RUNS: tcp_multi_copy,
// the stream sweep, the storage comparisons) is due next for a target. The
// slots take turns, one per opportunity (a plan round's pair slot, a storage
// interval); a slot that does not apply now (the sweep, until a tcp_multi
// result asks for it) is passed over. Pure: the caller decides when an
// opportunity is, and whether the budget allows the run.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "active-probes/probe/rungs.h"

namespace fabric {

class ComparisonRotation {
 public:
  // One slot: the comparison rungs that run together (shared and separate
  // files are one slot, so the two halves of the comparison are measured
  // together).
  using Slot = std::vector<probe::Rung>;
  explicit ComparisonRotation(std::vector<Slot> slots) : slots_(std::move(slots)) {}

  size_t size() const { return slots_.size(); }
  // The index of the slot due next for `target`: the first slot from the
  // target's turn on that `applies`; nullopt when none does.
  std::optional<size_t> Due(const std::string& target,
                            const std::function<bool(const Slot&)>& applies) const;
  const Slot& slot(size_t index) const { return slots_[index]; }
  // The slot ran (whatever its outcome): the turn passes to the next one.
  void Ran(const std::string& target, size_t index);
  // How many opportunities a slot waits at most between two runs while every
  // slot applies: the rotation's length.
  size_t PeriodInOpportunities() const { return slots_.size(); }

 private:
  std::vector<Slot> slots_;
  std::map<std::string, size_t> turn_;  // By target: the slot whose turn it is.
};

}  // namespace fabric
