#include "exporter/scheduled_probes/probe_plan.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
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

namespace fabric {
namespace {

// `racks` racks of `rack_size` members on `planes` planes, named so that the
// membership order interleaves racks (as sorted node names may).
std::vector<PlanMember> Topology(size_t racks, size_t rack_size, size_t planes) {
  std::vector<PlanMember> members;
  for (size_t i = 0; i < racks * rack_size; ++i) {
    members.push_back({"r" + std::to_string(i % racks), "p" + std::to_string(i % planes)});
  }
  return members;
}

struct TopologyCase {
  size_t racks, rack_size, planes;
};

class TopologyPlanTest : public ::testing::TestWithParam<TopologyCase> {};

// Every round is a matching inside each plane that both ends agree on, and
// every ordered rack pair of a plane is measured within RackPairPeriodRounds.
TEST_P(TopologyPlanTest, MatchingWithinPlanesCoversRackPairsInTheBound) {
  const auto [racks, rack_size, planes] = GetParam();
  const auto members = Topology(racks, rack_size, planes);
  const TopologyPlan plan(members);
  const size_t n = members.size();
  const uint64_t period = plan.RackPairPeriodRounds();
  std::set<std::pair<std::string, std::string>> covered;  // (plane/rack, rack)
  for (uint64_t round = 0; round < period; ++round) {
    for (size_t self = 0; self < n; ++self) {
      auto planned = plan.Round(self, round);
      if (!planned) continue;
      ASSERT_LT(planned->peer, n);
      ASSERT_NE(planned->peer, self);
      ASSERT_EQ(members[self].plane, members[planned->peer].plane) << "a pair crosses planes";
      auto mirror = plan.Round(planned->peer, round);
      ASSERT_TRUE(mirror.has_value()) << self << " round " << round;
      ASSERT_EQ(mirror->peer, self);
      ASSERT_NE(mirror->initiator, planned->initiator);
      if (planned->initiator) {
        covered.insert(
            {members[self].plane + "/" + members[self].rack, members[planned->peer].rack});
      }
    }
  }
  // Every (plane, rack) -> rack of the same plane, itself included.
  std::set<std::pair<std::string, std::string>> expected;
  for (const auto& a : members) {
    for (const auto& b : members) {
      if (a.plane == b.plane) expected.insert({a.plane + "/" + a.rack, b.rack});
    }
  }
  EXPECT_EQ(covered, expected);
}

// Each node's records of a peer are refreshed within PairPeriodRounds.
TEST_P(TopologyPlanTest, EachPairWithinItsPeriod) {
  const auto [racks, rack_size, planes] = GetParam();
  const auto members = Topology(racks, rack_size, planes);
  const TopologyPlan plan(members);
  const size_t self = members.size() / 2;
  std::map<size_t, uint64_t> longest;  // peer -> the longest period asked
  for (size_t peer = 0; peer < members.size(); ++peer) {
    if (uint64_t period = plan.PairPeriodRounds(self, peer); period > 0) longest[peer] = period;
  }
  uint64_t horizon = 0;
  for (const auto& [peer, period] : longest) horizon = std::max(horizon, period);
  std::set<size_t> probed;
  for (uint64_t round = 0; round < horizon; ++round) {
    auto planned = plan.Round(self, round);
    if (planned && planned->initiator) probed.insert(planned->peer);
  }
  for (const auto& [peer, period] : longest) EXPECT_TRUE(probed.count(peer)) << peer;
  for (size_t peer = 0; peer < members.size(); ++peer) {
    if (members[peer].plane != members[self].plane) {
      EXPECT_EQ(plan.PairPeriodRounds(self, peer), 0u);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Topologies, TopologyPlanTest,
                         ::testing::Values(TopologyCase{1, 7, 1}, TopologyCase{2, 8, 1},
                                           TopologyCase{3, 5, 1}, TopologyCase{5, 4, 2},
                                           TopologyCase{25, 40, 1}));

// Without topology the plan is the plain circle method.
TEST(TopologyPlanTest, NoTopologyIsThePlainPlan) {
  const TopologyPlan plan(std::vector<PlanMember>(9));
  for (uint64_t round = 0; round < 40; ++round) {
    for (size_t self = 0; self < 9; ++self) {
      auto a = plan.Round(self, round);
      auto b = PlanRound(9, self, round);
      ASSERT_EQ(a.has_value(), b.has_value());
      if (a) {
        EXPECT_EQ(a->peer, b->peer);
        EXPECT_EQ(a->initiator, b->initiator);
      }
    }
  }
}

// Uneven racks: the larger rack's extra members sit out, the plan stays a matching.
TEST(TopologyPlanTest, UnevenRacks) {
  std::vector<PlanMember> members;
  for (int i = 0; i < 3; ++i) members.push_back({"a", ""});
  for (int i = 0; i < 7; ++i) members.push_back({"b", ""});
  const TopologyPlan plan(members);
  for (uint64_t round = 0; round < 200; ++round) {
    for (size_t self = 0; self < members.size(); ++self) {
      auto planned = plan.Round(self, round);
      if (!planned) continue;
      auto mirror = plan.Round(planned->peer, round);
      ASSERT_TRUE(mirror && mirror->peer == self);
    }
  }
  EXPECT_EQ(plan.PairPeriodRounds(0, 5), 2 * PlanPeriodRounds(2) * 7);
}

}  // namespace
}  // namespace fabric
