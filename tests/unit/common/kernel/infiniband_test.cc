// class/infiniband over the RDMA fixture trees and a temporary tree.
#include "common/kernel/infiniband.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

SysRoot TwoDevices() {
  std::string base = std::string(FABRIC_SOURCE_DIR) + "/tests/fixtures/rdma-two-devices";
  return SysRoot(base + "/proc", base + "/sys");
}

TEST(InfinibandTest, DevicesPortsAndTheirAttributes) {
  const SysRoot root = TwoDevices();
  auto devices = ListIbDevices(root);
  ASSERT_TRUE(devices.ok());
  EXPECT_EQ(*devices, (std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2"}));
  auto ports = ListIbPorts(root, "mlx5_0");
  ASSERT_TRUE(ports.ok());
  EXPECT_EQ(*ports, (std::vector<std::string>{"1"}));
  const AttributeDir port(IbPortPath(root, "mlx5_0", "1"));
  auto state = ReadIbState(port, "state");
  ASSERT_TRUE(state.ok() && *state);
  EXPECT_EQ((*state)->code, 4);
  EXPECT_EQ((*state)->name, "ACTIVE");
  EXPECT_EQ(ReadIbWord(port, "link_layer").value(), "Ethernet");
  EXPECT_EQ(ReadIbGidNetdev(port, 0).value(), "eth0");
  EXPECT_EQ(ListIbGidNetdevs(root, "mlx5_0", "1"), (std::vector<std::string>{"eth0"}));
  auto xmit =
      ReadIbCounter(IbCounterDir(root, "mlx5_0", "1", IbCounterSet::kPort), "port_xmit_data");
  ASSERT_TRUE(xmit.ok() && *xmit);
  EXPECT_EQ(**xmit, 1000u);  // 4-byte words, as the file says
  auto no_hw = ReadIbCounter(IbCounterDir(root, "mlx5_1", "1", IbCounterSet::kHw), "np_cnp_sent");
  ASSERT_TRUE(no_hw.ok());
  EXPECT_FALSE(no_hw->has_value());
}

TEST(InfinibandTest, AbsentBrokenAndPci) {
  fabric::testing::TestDir dir;
  SysRoot root((dir.path() / "proc").string(), (dir.path() / "sys").string());
  EXPECT_TRUE(ListIbDevices(root).absent());
  dir.Write("sys/class/infiniband/mlx5_0/ports/1/state", "four\n");
  dir.Write("sys/class/infiniband/mlx5_0/ports/1/rate", "100 Gb/sec (4X EDR)\n");
  dir.Write("sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error", "-5\n");
  dir.Write("sys/class/infiniband/mlx5_0/ports/1/counters/link_downed", "x\n");
  dir.Write("sys/devices/pci0000:00/0000:00:02.0/0000:3b:00.0/infiniband/mlx5_0/x", "");
  std::filesystem::create_directory_symlink("../../devices/pci0000:00/0000:00:02.0/0000:3b:00.0",
                                            dir.path() / "sys/class/infiniband/mlx5_0/device");
  EXPECT_EQ(IbDevicePciAddress(root, "mlx5_0"), "0000:3b:00.0");
  EXPECT_EQ(IbDevicePciAddress(root, "mlx5_9"), "");
  EXPECT_TRUE(ListIbPorts(root, "mlx5_9").absent());
  const AttributeDir port(IbPortPath(root, "mlx5_0", "1"));
  EXPECT_FALSE(ReadIbState(port, "state").ok());
  EXPECT_FALSE(ReadIbState(port, "phys_state").value().has_value());
  EXPECT_DOUBLE_EQ(*ReadIbRateBytes(port).value(), 12.5e9);
  const AttributeDir counters = IbCounterDir(root, "mlx5_0", "1", IbCounterSet::kPort);
  EXPECT_FALSE(ReadIbCounter(counters, "symbol_error").ok());
  EXPECT_FALSE(ReadIbCounter(counters, "link_downed").ok());
  EXPECT_FALSE(ReadIbCounter(counters, "port_rcv_data").value().has_value());
  EXPECT_EQ(ReadIbGidNetdev(port, 0).value(), "");
  EXPECT_TRUE(ListIbGidNetdevs(root, "mlx5_0", "1").empty());
}

}  // namespace
}  // namespace fabric
