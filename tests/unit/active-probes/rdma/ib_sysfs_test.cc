// Device and port selection and port counters from fixture class/infiniband
// trees (tests/fixtures/rdma-*), and the "no device" paths.
#include "active-probes/rdma/ib_sysfs.h"

#include <gtest/gtest.h>

#include "tests/unit/test_dir.h"

namespace fabric::probe {
namespace {

SysRoot Fixture(const std::string& name) {
  std::string base = std::string(FABRIC_SOURCE_DIR) + "/tests/fixtures/rdma-" + name;
  return SysRoot(base + "/proc", base + "/sys");
}

std::vector<RdmaPortInfo> TwoDevices() {
  auto ports = ListRdmaPorts(Fixture("two-devices"));
  EXPECT_TRUE(ports.ok());
  return ports.ok() ? *ports : std::vector<RdmaPortInfo>{};
}

// State and rate come from common/kernel's reader; the probe keeps only the
// states the IB spec defines (0-7) and reports the rate in bits.
TEST(IbSysfs, PortStateAndRate) {
  fabric::testing::TestDir dir;
  dir.Write("sys/class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
  dir.Write("sys/class/infiniband/mlx5_0/ports/1/rate", "200 Gb/sec (4X HDR)\n");
  dir.Write("sys/class/infiniband/mlx5_0/ports/2/state", "9: BOGUS\n");
  dir.Write("sys/class/infiniband/mlx5_0/ports/2/rate", "2.5 Gb/sec (1X SDR)\n");
  dir.Write("sys/class/infiniband/mlx5_1/ports/1/state", "ACTIVE\n");
  dir.Write("sys/class/infiniband/mlx5_1/ports/1/rate", "200 Mb/sec\n");
  SysRoot root((dir.path() / "proc").string(), (dir.path() / "sys").string());
  auto ports = ListRdmaPorts(root);
  ASSERT_TRUE(ports.ok());
  ASSERT_EQ(ports->size(), 3u);
  EXPECT_EQ((*ports)[0].state, 4);
  EXPECT_EQ((*ports)[0].state_text, "ACTIVE");
  EXPECT_DOUBLE_EQ((*ports)[0].rate_bits_per_second, 200e9);
  EXPECT_EQ((*ports)[1].state, 0);  // 9 is no IB port state
  EXPECT_FALSE((*ports)[1].active());
  EXPECT_DOUBLE_EQ((*ports)[1].rate_bits_per_second, 2.5e9);
  EXPECT_EQ((*ports)[2].state, 0);  // no "N:" prefix
  EXPECT_DOUBLE_EQ((*ports)[2].rate_bits_per_second, 0);
}

TEST(IbSysfs, ListsEveryPortSorted) {
  auto ports = TwoDevices();
  ASSERT_EQ(ports.size(), 3u);
  EXPECT_EQ(ports[0].device, "mlx5_0");
  EXPECT_TRUE(ports[0].active());
  EXPECT_EQ(ports[0].link_layer, "Ethernet");
  EXPECT_DOUBLE_EQ(ports[0].rate_bits_per_second, 200e9);
  // Two GIDs (RoCE v1 and v2) on the same interface: listed once.
  EXPECT_EQ(ports[0].netdevs, std::vector<std::string>{"eth0"});
  EXPECT_EQ(ports[1].device, "mlx5_1");
  EXPECT_FALSE(ports[1].active());
  EXPECT_EQ(ports[1].state_text, "DOWN");
  EXPECT_EQ(ports[2].link_layer, "InfiniBand");
  EXPECT_TRUE(ports[2].netdevs.empty());
}

TEST(IbSysfs, SelectsThePortOnTheSourceInterface) {
  auto ports = TwoDevices();
  auto p = SelectRdmaPort(ports, "", "eth0");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->device, "mlx5_0");
  EXPECT_EQ(p->port, 1u);
  // No device and no interface: the first active port.
  auto any = SelectRdmaPort(ports, "", "");
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(any->device, "mlx5_0");
  // A named device is taken even when its GIDs are not on the interface.
  auto named = SelectRdmaPort(ports, "mlx5_2", "eth0");
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->device, "mlx5_2");
}

TEST(IbSysfs, DownPortIsNoActivePort) {
  auto ports = TwoDevices();
  auto p = SelectRdmaPort(ports, "", "eth1");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, ErrorCode::kNoActivePort) << p.error().message;
  EXPECT_NE(p.error().message.find("device mlx5_1 has no active port"), std::string::npos)
      << p.error().message;
  auto named = SelectRdmaPort(ports, "mlx5_1", "");
  ASSERT_FALSE(named.ok());
  EXPECT_EQ(named.error().code, ErrorCode::kNoActivePort) << named.error().message;
}

TEST(IbSysfs, NoDevicePaths) {
  auto ports = TwoDevices();
  auto wrong_if = SelectRdmaPort(ports, "", "eth9");
  ASSERT_FALSE(wrong_if.ok());
  EXPECT_EQ(wrong_if.error().code, ErrorCode::kNoDevice);
  EXPECT_NE(wrong_if.error().message.find("no RDMA device on interface eth9"), std::string::npos);
  auto wrong_name = SelectRdmaPort(ports, "mlx5_9", "");
  ASSERT_FALSE(wrong_name.ok());
  EXPECT_EQ(wrong_name.error().code, ErrorCode::kNoDevice);
  EXPECT_NE(wrong_name.error().message.find("no RDMA device named \"mlx5_9\""), std::string::npos);
  auto none = SelectRdmaPort({}, "", "eth0");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, ErrorCode::kNoDevice) << none.error().message;

  // A host without the RDMA stack has no class/infiniband at all; one with
  // the stack but no device has it empty. Both are "no ports", not errors.
  fabric::testing::TestDir dir;
  dir.Write("sys/class/net/eth0/mtu", "1500");
  SysRoot root((dir.path() / "proc").string(), (dir.path() / "sys").string());
  auto missing = ListRdmaPorts(root);
  ASSERT_TRUE(missing.ok());
  EXPECT_TRUE(missing->empty());
  std::filesystem::create_directories(dir.path() / "sys/class/infiniband");
  auto empty = ListRdmaPorts(root);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(IbSysfs, CountersAndAbsence) {
  auto c = ReadPortCounters(Fixture("two-devices"), "mlx5_0", 1);
  EXPECT_EQ(c.xmit_bytes, 4000u);  // port_xmit_data counts 4-byte words
  EXPECT_EQ(c.rcv_bytes, 8000u);
  EXPECT_EQ(c.np_cnp_sent, 5u);
  EXPECT_EQ(c.rp_cnp_handled, 7u);
  EXPECT_EQ(c.out_of_buffer, 0u);
  auto down = ReadPortCounters(Fixture("two-devices"), "mlx5_1", 1);
  EXPECT_EQ(down.xmit_bytes, 48u);
  EXPECT_FALSE(down.rcv_bytes.has_value());
  EXPECT_FALSE(down.np_cnp_sent.has_value());  // no hw_counters: absent, not zero
}

TEST(IbSysfs, CounterDeltas) {
  PortCounters a, b;
  a.xmit_bytes = 100;
  b.xmit_bytes = 350;
  a.np_cnp_sent = 10;
  b.np_cnp_sent = 4;  // went backwards: a reset mid-window
  b.rcv_bytes = 7;    // absent before
  auto d = DiffPortCounters(a, b);
  EXPECT_EQ(d.xmit_bytes, 250u);
  EXPECT_FALSE(d.np_cnp_sent.has_value());
  EXPECT_FALSE(d.rcv_bytes.has_value());
}

}  // namespace
}  // namespace fabric::probe
