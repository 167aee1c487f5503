#include "exporter/scheduled_probes/path_rotation.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace fabric {
namespace {

// `racks` racks of `size` members each, member i in rack i % racks.
std::vector<std::string> Racks(size_t racks, size_t size) {
  std::vector<std::string> out;
  for (size_t i = 0; i < racks * size; ++i) out.push_back("r" + std::to_string(i % racks));
  return out;
}

TEST(PathRotationTest, EachTurnChecksOneMemberOfAThirdOfTheRacks) {
  const auto racks = Racks(25, 40);
  for (uint64_t turn = 0; turn < 12; ++turn) {
    const auto targets = PathRotationTargets(racks, 7, turn);
    // ceil(25 / 3) racks at most, one member each.
    EXPECT_LE(targets.size(), 9u) << "turn " << turn;
    EXPECT_GE(targets.size(), 8u) << "turn " << turn;
    std::set<std::string> seen;
    for (size_t t : targets) {
      EXPECT_NE(t, 7u);
      EXPECT_TRUE(seen.insert(racks[t]).second) << "two members of " << racks[t];
    }
  }
}

TEST(PathRotationTest, EveryRackIsCheckedWithinThreeTurns) {
  const auto racks = Racks(7, 5);
  for (uint64_t start = 0; start < 6; ++start) {
    std::set<std::string> seen;
    for (uint64_t turn = start; turn < start + kPathRackTurns; ++turn) {
      for (size_t t : PathRotationTargets(racks, 3, turn)) seen.insert(racks[t]);
    }
    // The own rack's turn may pick this node itself (skipped); every other
    // rack is checked.
    seen.insert(racks[3]);
    EXPECT_EQ(seen.size(), 7u) << "from turn " << start;
  }
}

TEST(PathRotationTest, TheMembersOfARackTakeTurns) {
  const auto racks = Racks(3, 4);
  std::map<std::string, std::set<size_t>> members;
  for (uint64_t turn = 0; turn < 4 * kPathRackTurns; ++turn) {
    for (size_t t : PathRotationTargets(racks, 0, turn)) members[racks[t]].insert(t);
  }
  // Every member of the other racks is checked in 4 passes of the rotation.
  EXPECT_EQ(members["r1"].size(), 4u);
  EXPECT_EQ(members["r2"].size(), 4u);
}

TEST(PathRotationTest, NoRacksConfiguredIsOneRack) {
  const std::vector<std::string> racks(20, "");
  std::set<size_t> checked;
  for (uint64_t turn = 0; turn < 3 * 20; ++turn) {
    const auto targets = PathRotationTargets(racks, 0, turn);
    EXPECT_LE(targets.size(), 1u);
    checked.insert(targets.begin(), targets.end());
  }
  EXPECT_EQ(checked.size(), 19u);  // Every peer in turn, never itself.
}

}  // namespace
}  // namespace fabric
