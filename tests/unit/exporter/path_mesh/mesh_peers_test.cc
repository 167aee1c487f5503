#include "exporter/path_mesh/mesh_peers.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace fabric {
namespace {

// n nodes "n000".."n(n-1)", rack r<i / per_rack> when per_rack > 0.
Fleet MakeFleet(size_t n, size_t per_rack, size_t self) {
  Fleet fleet;
  for (size_t i = 0; i < n; ++i) {
    std::string name = std::to_string(i);
    name = "n" + std::string(name.size() < 3 ? 3 - name.size() : 0, '0') + name;
    FleetNode node{name, "198.18." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 1),
                   "", 0};
    if (per_rack > 0) node.rack = "r" + std::to_string(i / per_rack);
    fleet.nodes.push_back(node);
  }
  fleet.self = fleet.nodes[self].name;
  return fleet;
}

std::set<std::string> Names(const std::vector<FleetNode>& nodes) {
  std::set<std::string> names;
  for (const auto& n : nodes) names.insert(n.name);
  return names;
}

TEST(MeshPeersTest, SmallFleetTakesEveryOtherMember) {
  Fleet fleet = MakeFleet(5, 0, 2);
  auto peers = ChooseMeshPeers(fleet, 16);
  EXPECT_EQ(Names(peers), (std::set<std::string>{"n000", "n001", "n003", "n004"}));
}

TEST(MeshPeersTest, OneNodeFleetHasNoPeers) {
  EXPECT_TRUE(ChooseMeshPeers(MakeFleet(1, 0, 0), 16).empty());
}

TEST(MeshPeersTest, CappedNeverSelfOnlyFleetMembersAndDeterministic) {
  Fleet fleet = MakeFleet(200, 0, 17);
  auto peers = ChooseMeshPeers(fleet, 16);
  ASSERT_EQ(peers.size(), 16u);
  std::set<std::string> members = Names(fleet.nodes);
  for (const auto& p : peers) {
    EXPECT_NE(p.name, fleet.self);
    EXPECT_TRUE(members.count(p.name)) << p.name;
  }
  EXPECT_EQ(Names(peers).size(), 16u);  // no duplicates
  // Every node computes the same subset from the same config, whatever the
  // order the nodes were listed in.
  Fleet reversed = fleet;
  std::reverse(reversed.nodes.begin(), reversed.nodes.end());
  std::sort(reversed.nodes.begin(), reversed.nodes.end(),
            [](const FleetNode& a, const FleetNode& b) { return a.name < b.name; });
  EXPECT_EQ(Names(ChooseMeshPeers(reversed, 16)), Names(peers));
}

TEST(MeshPeersTest, SubsetsAreSpreadSoEveryNodeIsProbed) {
  // The hash depends on the chooser: with 200 nodes choosing 16 each, every
  // node is someone's peer and none is everyone's (a shared ranking would
  // make the same 16 nodes everyone's peers and leave 184 unprobed).
  const size_t n = 200;
  std::vector<size_t> probed_by(n, 0);
  for (size_t self = 0; self < n; ++self) {
    Fleet fleet = MakeFleet(n, 0, self);
    for (const auto& p : ChooseMeshPeers(fleet, 16)) {
      ++probed_by[static_cast<size_t>(std::stoi(p.name.substr(1)))];
    }
  }
  size_t max = 0, unprobed = 0;
  for (size_t c : probed_by) {
    max = std::max(max, c);
    unprobed += c == 0;
  }
  EXPECT_EQ(unprobed, 0u);
  EXPECT_LT(max, 40u);  // 16 on average
}

TEST(MeshPeersTest, RackLocalFirstThenOtherRacks) {
  // 10 racks of 20; self n045 in rack r2 (n040..n059).
  Fleet fleet = MakeFleet(200, 20, 45);
  auto peers = ChooseMeshPeers(fleet, 16);
  ASSERT_EQ(peers.size(), 16u);
  for (size_t i = 0; i < peers.size(); ++i) {
    // Half the slots to the rack, first; the rest leave the rack.
    EXPECT_EQ(peers[i].rack == "r2", i < 8) << i << " " << peers[i].name << " " << peers[i].rack;
  }
}

TEST(MeshPeersTest, SmallRackLeavesItsSlotsToOtherRacksAndViceVersa) {
  // Racks of 3: two rack-local peers, 14 from elsewhere.
  auto peers = ChooseMeshPeers(MakeFleet(60, 3, 4), 16);
  ASSERT_EQ(peers.size(), 16u);
  size_t local = 0;
  for (const auto& p : peers) local += p.rack == "r1";
  EXPECT_EQ(local, 2u);
  // One other rack with one node: the rack-local peers fill the rest.
  Fleet fleet = MakeFleet(21, 20, 0);
  peers = ChooseMeshPeers(fleet, 16);
  ASSERT_EQ(peers.size(), 16u);
  local = 0;
  for (const auto& p : peers) local += p.rack == "r0";
  EXPECT_EQ(local, 15u);
}

TEST(MeshPeersTest, RankIsStableAcrossBuilds) {
  // FNV-1a 64 of "a\0b" through the Murmur finaliser: a fixed value, not std::hash's.
  EXPECT_EQ(MeshRank("a", "b"), 0xab78f5eca36d0e2bull);
  EXPECT_NE(MeshRank("a", "b"), MeshRank("b", "a"));
}

}  // namespace
}  // namespace fabric
