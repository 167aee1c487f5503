#include "exporter/pcie/pcie_path.h"

#include <gtest/gtest.h>

#include "exporter/pcie/pcie_bandwidth.h"

namespace fabric {
namespace {

PcieNode Node(std::string address, std::string parent, double cur_speed, int cur_width,
              double max_speed, int max_width, std::optional<int> type = std::nullopt) {
  return PcieNode{std::move(address), std::move(parent),
                  PcieLinkValues{cur_speed, cur_width, max_speed, max_width}, type};
}

std::map<std::string, PcieNode> Table(std::vector<PcieNode> nodes) {
  std::map<std::string, PcieNode> out;
  for (auto& n : nodes) out.emplace(n.address, std::move(n));
  return out;
}

const PciePath& OnlyPath(const PcieTopologyAnalysis& a) {
  EXPECT_EQ(a.paths.size(), 1u);
  return a.paths.front();
}

TEST(PciePathTest, X16NicInRootPortHardwiredX4IsSlotLimitedNotDowntrained) {
  auto nodes = Table({Node("0000:00:1c.0", "", 16, 4, 16, 4),
                      Node("0000:02:00.0", "0000:00:1c.0", 16, 4, 16, 16)});
  auto a = AnalysePciePaths(nodes, {"0000:02:00.0"});
  const auto& p = OnlyPath(a);
  EXPECT_TRUE(p.slot_limited);
  EXPECT_EQ(p.downtrained_hops, 0);
  EXPECT_EQ(p.capable_width, 4);
  EXPECT_NEAR(*p.capable_bytes_per_second, PcieLinkBytesPerSecond(16, 4), 1);
  EXPECT_LT(*p.current_bytes_per_second, 25e9);  // Below 200 GbE.
  const auto& hop = a.hops.at("0000:02:00.0");
  EXPECT_EQ(hop.upstream, "0000:00:1c.0");
  EXPECT_FALSE(hop.width_downtrained);
}

TEST(PciePathTest, X8OfX16IsDowntrainedNotSlotLimited) {
  auto nodes = Table({Node("0000:c0:03.1", "", 16, 8, 16, 16),
                      Node("0000:c1:00.0", "0000:c0:03.1", 16, 8, 16, 16)});
  auto a = AnalysePciePaths(nodes, {"0000:c1:00.0"});
  const auto& p = OnlyPath(a);
  EXPECT_FALSE(p.slot_limited);
  EXPECT_EQ(p.downtrained_hops, 1);
  EXPECT_TRUE(a.hops.at("0000:c1:00.0").width_downtrained);
  EXPECT_FALSE(a.hops.at("0000:c1:00.0").speed_downtrained);
  EXPECT_NEAR(*p.current_bytes_per_second * 2, *p.capable_bytes_per_second, 1);
}

TEST(PciePathTest, Gen5DeviceInGen4PortIsNormal) {
  auto nodes = Table({Node("0000:00:03.1", "", 16, 16, 16, 16),
                      Node("0000:01:00.0", "0000:00:03.1", 16, 16, 32, 16)});
  auto a = AnalysePciePaths(nodes, {"0000:01:00.0"});
  const auto& p = OnlyPath(a);
  EXPECT_FALSE(p.slot_limited);
  EXPECT_EQ(p.downtrained_hops, 0);
  EXPECT_EQ(a.hops.at("0000:01:00.0").capable_speed_gts, 16.0);
}

TEST(PciePathTest, SpeedBelowBothEndsIsDowntrained) {
  auto nodes = Table({Node("0000:00:03.1", "", 8, 16, 16, 16),
                      Node("0000:01:00.0", "0000:00:03.1", 8, 16, 32, 16)});
  auto a = AnalysePciePaths(nodes, {"0000:01:00.0"});
  EXPECT_TRUE(a.hops.at("0000:01:00.0").speed_downtrained);
  EXPECT_EQ(OnlyPath(a).downtrained_hops, 1);
}

// Root port - switch upstream port - downstream port - GPU, without port
// types (sysfs only): the link alternation must skip the switch's internal
// bus, and the narrow uplink is the bottleneck though the GPU's link is fine.
TEST(PciePathTest, SwitchWithoutPortTypesSkipsTheInternalBus) {
  auto nodes = Table({Node("0000:00:01.1", "", 16, 8, 16, 16),
                      Node("0000:01:00.0", "0000:00:01.1", 16, 8, 16, 16),
                      Node("0000:02:00.0", "0000:01:00.0", 16, 16, 16, 16),
                      Node("0000:03:00.0", "0000:02:00.0", 16, 16, 16, 16)});
  auto a = AnalysePciePaths(nodes, {"0000:03:00.0"});
  const auto& p = OnlyPath(a);
  EXPECT_EQ(p.hops, (std::vector<std::string>{"0000:03:00.0", "0000:01:00.0"}));
  EXPECT_EQ(a.hops.at("0000:01:00.0").upstream, "0000:00:01.1");
  EXPECT_EQ(a.hops.at("0000:03:00.0").upstream, "0000:02:00.0");
  EXPECT_EQ(p.bottleneck, "0000:01:00.0");
  EXPECT_EQ(p.downtrained_hops, 1);
  EXPECT_FALSE(p.slot_limited);
}

TEST(PciePathTest, PortTypesOverrideTheAlternation) {
  // An endpoint directly below a root port whose sysfs parent chain has an
  // extra bridge (a root complex with a virtual bridge above the port).
  auto nodes = Table({Node("0000:00:00.3", "", 16, 16, 16, 16, 6),
                      Node("0000:00:01.0", "0000:00:00.3", 16, 16, 16, 16, 4),
                      Node("0000:01:00.0", "0000:00:01.0", 16, 16, 16, 16, 0)});
  auto a = AnalysePciePaths(nodes, {"0000:01:00.0"});
  EXPECT_EQ(OnlyPath(a).hops, (std::vector<std::string>{"0000:01:00.0"}));
}

TEST(PciePathTest, ConventionalPciBehindABridgeUsesTheBridgeLink) {
  auto nodes = Table({Node("0000:00:03.0", "", 2.5, 1, 8, 4),
                      Node("0000:03:00.0", "0000:00:03.0", 2.5, 1, 2.5, 1),
                      PcieNode{"0000:04:00.0", "0000:03:00.0", {}, std::nullopt}});
  auto a = AnalysePciePaths(nodes, {"0000:04:00.0"});
  const auto& p = OnlyPath(a);
  EXPECT_EQ(p.hops, (std::vector<std::string>{"0000:03:00.0"}));
  EXPECT_EQ(*p.current_bytes_per_second, 250e6);
  EXPECT_FALSE(p.slot_limited);  // The endpoint has no width to compare.
}

TEST(PciePathTest, DeviceOnAVirtualMachineRootBusHasOneHopWithoutPartner) {
  auto nodes = Table({Node("0000:00:06.0", "", 32, 16, 32, 16)});
  auto a = AnalysePciePaths(nodes, {"0000:00:06.0"});
  const auto& p = OnlyPath(a);
  EXPECT_EQ(p.hops.size(), 1u);
  EXPECT_EQ(a.hops.at("0000:00:06.0").upstream, "");
  EXPECT_EQ(p.downtrained_hops, 0);
  EXPECT_FALSE(p.slot_limited);
}

TEST(PciePathTest, UnknownCurrentLinkLeavesCurrentUnknownButCapableKnown) {
  PcieNode port{"0000:00:02.0", "", {std::nullopt, std::nullopt, 5.0, 4}, std::nullopt};
  PcieNode nic{
      "0000:02:00.0", "0000:00:02.0", {std::nullopt, std::nullopt, std::nullopt, 4}, std::nullopt};
  auto a = AnalysePciePaths(Table({port, nic}), {"0000:02:00.0"});
  const auto& p = OnlyPath(a);
  EXPECT_FALSE(p.current_bytes_per_second);
  EXPECT_EQ(p.bottleneck, "");
  EXPECT_EQ(*p.capable_bytes_per_second, 2e9);
  EXPECT_EQ(p.downtrained_hops, 0);
}

TEST(PciePathTest, SharedHopsAreListedOnceAndCyclesEnd) {
  auto nodes = Table({Node("0000:00:01.1", "", 16, 16, 16, 16),
                      Node("0000:41:00.0", "0000:00:01.1", 16, 16, 16, 16),
                      Node("0000:41:00.1", "0000:00:01.1", 16, 16, 16, 16),
                      Node("0000:99:00.0", "0000:99:00.1", 16, 16, 16, 16),
                      Node("0000:99:00.1", "0000:99:00.0", 16, 16, 16, 16)});
  auto a = AnalysePciePaths(nodes, {"0000:41:00.0", "0000:41:00.1", "0000:99:00.0", "nope"});
  EXPECT_EQ(a.paths.size(), 3u);
  EXPECT_EQ(a.hops.count("0000:41:00.0"), 1u);
  EXPECT_EQ(a.hops.count("0000:41:00.1"), 1u);
}

}  // namespace
}  // namespace fabric
