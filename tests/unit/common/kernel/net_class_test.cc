// class/net over a temporary tree: attributes, statistics, what is absent
// (a missing file, EINVAL-style empty reads) and what is broken.
#include "common/kernel/net_class.h"

#include <gtest/gtest.h>

#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

class NetClassTest : public ::testing::Test {
 protected:
  SysRoot Root() const {
    return SysRoot((dir_.path() / "proc").string(), (dir_.path() / "sys").string());
  }
  fabric::testing::TestDir dir_;
};

TEST_F(NetClassTest, ListsInterfacesSortedAndAbsentWithoutClassNet) {
  EXPECT_TRUE(ListNetInterfaces(Root()).absent());
  dir_.Write("sys/class/net/eth1/mtu", "1500\n");
  dir_.Write("sys/class/net/eth0/mtu", "9000\n");
  auto names = ListNetInterfaces(Root());
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"eth0", "eth1"}));
}

TEST_F(NetClassTest, IntsWordsAndStatistics) {
  dir_.Write("sys/class/net/eth0/mtu", "9000\n");
  dir_.Write("sys/class/net/eth0/speed", "-1\n");
  dir_.Write("sys/class/net/eth0/operstate", "up\n");
  dir_.Write("sys/class/net/eth0/duplex", "garbage-is-a-word\n");
  dir_.Write("sys/class/net/eth0/carrier", "x\n");
  dir_.Write("sys/class/net/eth0/statistics/rx_bytes", "123\n");
  const AttributeDir eth0 = NetInterfaceDir(Root(), "eth0");
  EXPECT_EQ(ReadNetInt(eth0, "mtu").value(), 9000);
  EXPECT_EQ(ReadNetInt(eth0, "speed").value(), -1);
  EXPECT_FALSE(ReadNetInt(eth0, "tx_queue_len").value().has_value());
  EXPECT_FALSE(ReadNetInt(eth0, "carrier").ok());
  EXPECT_EQ(ReadNetWord(eth0, "operstate").value(), "up");
  EXPECT_FALSE(ReadNetWord(eth0, "ifalias").value().has_value());
  EXPECT_EQ(ReadNetInt(NetStatisticsDir(eth0), "rx_bytes").value(), 123);
}

TEST_F(NetClassTest, ByteCountersAndSpeedForProbes) {
  dir_.Write("sys/class/net/eth0/statistics/rx_bytes", "123\n");
  dir_.Write("sys/class/net/eth0/statistics/tx_bytes", "456\n");
  dir_.Write("sys/class/net/eth0/speed", "100000\n");
  dir_.Write("sys/class/net/eth1/statistics/rx_bytes", "1\n");  // no tx_bytes
  dir_.Write("sys/class/net/eth1/speed", "-1\n");
  dir_.Write("sys/class/net/eth2/statistics/rx_bytes", "1\n");
  dir_.Write("sys/class/net/eth2/statistics/tx_bytes", "not a number\n");
  dir_.Write("sys/class/net/eth2/speed", "0\n");
  auto c = ReadNetByteCounters(Root(), "eth0");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->rx_bytes, 123u);
  EXPECT_EQ(c->tx_bytes, 456u);
  EXPECT_FALSE(ReadNetByteCounters(Root(), "eth1").has_value());
  EXPECT_FALSE(ReadNetByteCounters(Root(), "eth2").has_value());
  EXPECT_FALSE(ReadNetByteCounters(Root(), "").has_value());
  EXPECT_EQ(ReadNetSpeedMbps(Root(), "eth0"), 100000);
  EXPECT_FALSE(ReadNetSpeedMbps(Root(), "eth1").has_value());  // SPEED_UNKNOWN
  EXPECT_FALSE(ReadNetSpeedMbps(Root(), "eth2").has_value());  // veth, virtio
  EXPECT_FALSE(ReadNetSpeedMbps(Root(), "eth9").has_value());
}

}  // namespace
}  // namespace fabric
