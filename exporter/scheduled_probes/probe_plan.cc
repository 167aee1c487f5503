#include "exporter/scheduled_probes/probe_plan.h"

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

}  // namespace fabric
