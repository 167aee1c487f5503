#include "exporter/collectors/nvmeof_collector.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/unit/exporter/collectors/collector_harness.h"
#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

using testing::Has;
using testing::ScrapeWith;

const std::string kTree = std::string(FABRIC_SOURCE_DIR) + "/tests/fixtures/nfs-rdma";

TEST(NvmeofCollectorTest, FabricControllersWithTheirNamespacesBytes) {
  auto s = ScrapeWith(&MakeNvmeofCollector, kTree);
  ASSERT_TRUE(s.status.ok()) << s.status.error().message;
  const std::string& t = s.text;
  const std::string rdma = "controller=\"nvme1\",target=\"10.10.0.20\",transport=\"rdma\"";
  // 3774464 and 5342109696 sectors of 512 bytes.
  EXPECT_TRUE(Has(t, "fabric_nvmeof_read_bytes_total{" + rdma + "} 1932525568")) << t;
  EXPECT_TRUE(Has(t, "fabric_nvmeof_write_bytes_total{" + rdma + "} 2735160164352"));
  EXPECT_TRUE(Has(t, "fabric_nvmeof_controller_live{" + rdma + "} 1"));
  EXPECT_TRUE(Has(t,
                  "fabric_nvmeof_controller_live{controller=\"nvme3\",target=\"10.10.0.22\","
                  "transport=\"tcp\"} 0"));
  // The local PCIe controller is no fabric.
  EXPECT_EQ(t.find("controller=\"nvme0\""), std::string::npos);
}

TEST(NvmeofCollectorTest, NoNvmeIsSuccessWithoutSamples) {
  fabric::testing::TestDir dir;
  dir.Write("sys/class/net/eth0/mtu", "1500\n");
  auto s = ScrapeWith(&MakeNvmeofCollector, dir.path().string());
  EXPECT_TRUE(s.status.ok());
  EXPECT_EQ(s.text, "");
}

TEST(NvmeofCollectorTest, ABrokenNamespaceStatDropsOnlyItsController) {
  fabric::testing::TestDir dir;
  for (const char* c : {"nvme1", "nvme2"}) {
    std::string d = std::string("sys/class/nvme/") + c;
    dir.Write(d + "/transport", "tcp\n");
    dir.Write(d + "/address", std::string("traddr=10.0.0.") + c[4] + ",trsvcid=4420\n");
    dir.Write(d + "/state", "live\n");
  }
  dir.Write("sys/class/nvme/nvme1/nvme1n1/stat", "1 0 8 0 1 0 8 0 0 1 1\n");
  dir.Write("sys/class/nvme/nvme2/nvme2n1/stat", "1 0 8\n");
  auto s = ScrapeWith(&MakeNvmeofCollector, dir.path().string());
  ASSERT_TRUE(s.status.ok()) << s.status.error().message;
  EXPECT_TRUE(Has(s.text,
                  "fabric_nvmeof_read_bytes_total{controller=\"nvme1\",target=\"10.0.0.1\","
                  "transport=\"tcp\"} 4096"))
      << s.text;
  EXPECT_EQ(s.text.find("fabric_nvmeof_read_bytes_total{controller=\"nvme2\""), std::string::npos);
  EXPECT_NE(s.text.find("fabric_collector_device_errors{collector=\"nvmeof\",device=\"nvme2\","
                        "source=\"namespace_stat\"} 1"),
            std::string::npos)
      << s.text;
}

}  // namespace
}  // namespace fabric
