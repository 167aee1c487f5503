#include "common/kernel/numa.h"

#include <gtest/gtest.h>

#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

TEST(NumaTest, NodeOfAnInterfaceAndItsCpus) {
  fabric::testing::TestDir dir;
  dir.Write("sys/class/net/eth0/device/numa_node", "1\n");
  dir.Write("sys/class/net/veth0/device/numa_node", "-1\n");
  dir.Write("sys/devices/system/node/node0/cpulist", "0-3\n");
  dir.Write("sys/devices/system/node/node1/cpulist", "4-7,12\n");
  dir.Write("sys/devices/system/node/has_cpu", "0-1\n");
  dir.Write("sys/devices/system/node/online", "0-1\n");
  SysRoot root((dir.path() / "proc").string(), (dir.path() / "sys").string());
  EXPECT_EQ(NetDeviceNumaNode(root, "eth0"), 1);
  EXPECT_FALSE(NetDeviceNumaNode(root, "veth0").has_value());
  EXPECT_FALSE(NetDeviceNumaNode(root, "lo").has_value());
  EXPECT_EQ(NetDeviceNumaCpus(root, "eth0"), (std::vector<int>{4, 5, 6, 7, 12}));
  EXPECT_TRUE(NetDeviceNumaCpus(root, "veth0").empty());
  EXPECT_TRUE(NumaNodeCpus(root, 5).absent());
  auto nodes = CpuNumaNodes(root);
  ASSERT_TRUE(nodes.ok()) << nodes.error().message;
  EXPECT_EQ(nodes->size(), 9u);
  EXPECT_EQ(nodes->at(3), 0);
  EXPECT_EQ(nodes->at(12), 1);
}

TEST(NumaTest, NoNodeDirectoryIsAbsentAndABrokenListAnError) {
  fabric::testing::TestDir dir;
  SysRoot root((dir.path() / "proc").string(), (dir.path() / "sys").string());
  EXPECT_TRUE(CpuNumaNodes(root).absent());
  dir.Write("sys/devices/system/node/node0/cpulist", "3-1\n");
  EXPECT_FALSE(CpuNumaNodes(root).ok());
  EXPECT_FALSE(CpuNumaNodes(root).absent());
}

}  // namespace
}  // namespace fabric
