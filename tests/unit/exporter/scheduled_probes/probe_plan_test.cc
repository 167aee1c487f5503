#include "exporter/scheduled_probes/probe_plan.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

namespace fabric {
namespace {

class ProbePlanTest : public ::testing::TestWithParam<size_t> {};

// Over one plan period every ordered pair (requester, responder) is probed
// exactly once, and in every round each node is in at most one probe, as
// requester or responder: no node runs two probes at once and no responder
// is asked by two requesters in the same slot.
TEST_P(ProbePlanTest, CoversEveryOrderedPairOnceWithOneProbePerNodePerRound) {
  const size_t n = GetParam();
  const uint64_t period = PlanPeriodRounds(n);
  EXPECT_LE(period, 2 * n);  // Bounded by the fleet size, not its square.
  std::vector<std::vector<bool>> covered(n, std::vector<bool>(n, false));
  size_t covered_count = 0;
  for (uint64_t round = 0; round < period; ++round) {
    std::vector<int> busy(n, 0);
    for (size_t self = 0; self < n; ++self) {
      auto planned = PlanRound(n, self, round);
      if (!planned) continue;
      ASSERT_LT(planned->peer, n);
      ASSERT_NE(planned->peer, self);
      // The partner sees the same pair with the opposite role.
      auto mirror = PlanRound(n, planned->peer, round);
      ASSERT_TRUE(mirror.has_value());
      ASSERT_EQ(mirror->peer, self);
      ASSERT_NE(mirror->initiator, planned->initiator);
      ++busy[self];
      if (planned->initiator) {
        ASSERT_FALSE(covered[self][planned->peer]) << self << "->" << planned->peer << " twice";
        covered[self][planned->peer] = true;
        ++covered_count;
      }
    }
    for (size_t node = 0; node < n; ++node) ASSERT_LE(busy[node], 1);
  }
  EXPECT_EQ(covered_count, n * (n - 1));
}

TEST_P(ProbePlanTest, PlanRepeatsWithItsPeriod) {
  const size_t n = GetParam();
  const uint64_t period = PlanPeriodRounds(n);
  for (size_t self = 0; self < n; self += n / 3 + 1) {
    for (uint64_t round = 0; round < 5; ++round) {
      auto a = PlanRound(n, self, round);
      auto b = PlanRound(n, self, round + period * 7);
      ASSERT_EQ(a.has_value(), b.has_value());
      if (a) {
        EXPECT_EQ(a->peer, b->peer);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(FleetSizes, ProbePlanTest, ::testing::Values(2, 3, 4, 7, 64, 1000));

TEST(ProbePlanTest, DegenerateFleets) {
  EXPECT_FALSE(PlanRound(0, 0, 0).has_value());
  EXPECT_FALSE(PlanRound(1, 0, 5).has_value());
  EXPECT_FALSE(PlanRound(3, 3, 0).has_value());
}

TEST(ProbePlanTest, OddFleetGivesEachNodeOneByePerPass) {
  const size_t n = 3;
  int byes = 0;
  for (uint64_t round = 0; round < PlanPeriodRounds(n) / 2; ++round) {
    if (!PlanRound(n, 0, round)) ++byes;
  }
  EXPECT_EQ(byes, 1);
}

}  // namespace
}  // namespace fabric
