#include "exporter/collectors/rdma_collector.h"

#include <gtest/gtest.h>

#include "tests/unit/exporter/collectors/collector_harness.h"
#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

using testing::Has;
using testing::kNicsTree;
using testing::ScrapeWith;

TEST(RdmaCollectorTest, RocePortAndInfinibandPort) {
  auto s = ScrapeWith(&MakeRdmaCollector, kNicsTree);
  ASSERT_TRUE(s.status.ok()) << s.status.error().message;
  const std::string& t = s.text;
  // port_xmit_data counts 4-octet words.
  EXPECT_TRUE(Has(t,
                  "fabric_rdma_port_bytes_total{device=\"mlx5_2\",direction=\"tx\","
                  "port=\"1\"} 208853201676"))
      << t;
  EXPECT_TRUE(Has(t, "fabric_rdma_port_rate_bytes{device=\"mlx5_2\",port=\"1\"} 25000000000"));
  EXPECT_TRUE(Has(t, "fabric_rdma_port_state{device=\"mlx5_0\",port=\"1\"} 4"));
  EXPECT_TRUE(Has(t, "fabric_rdma_cnp_sent_total{device=\"mlx5_0\",port=\"1\"} 88412"));
  EXPECT_TRUE(Has(t,
                  "fabric_rdma_port_info{device=\"mlx5_0\",link_layer=\"Ethernet\","
                  "netdev=\"ens1f0np0\",pci_address=\"0000:3b:00.0\",port=\"1\"} 1"));
  EXPECT_TRUE(Has(t,
                  "fabric_rdma_port_info{device=\"mlx5_2\",link_layer=\"InfiniBand\","
                  "netdev=\"ib0\",pci_address=\"0000:af:00.0\",port=\"1\"} 1"));
  // The IB port has no congestion-notification counters: absent, not zero.
  EXPECT_EQ(t.find("fabric_rdma_cnp_sent_total{device=\"mlx5_2\""), std::string::npos);
  // lifespan is a setting, not a counter.
  EXPECT_EQ(t.find("lifespan"), std::string::npos);
}

TEST(RdmaCollectorTest, NoRdmaDevicesIsSuccessWithoutSamples) {
  fabric::testing::TestDir dir;
  dir.Write("sys/class/net/eth0/mtu", "1500\n");
  auto s = ScrapeWith(&MakeRdmaCollector, dir.path().string());
  EXPECT_TRUE(s.status.ok());
  EXPECT_EQ(s.text, "");
}

// One port's garbage counter drops that port's counters only: its state and
// the other device's counters stay, and the error series names the port.
TEST(RdmaCollectorTest, GarbageCounterDropsOnlyThatPortsCounters) {
  fabric::testing::TestDir dir;
  dir.Write("sys/class/infiniband/mlx5_8/ports/1/counters/port_rcv_data", "12\n");
  dir.Write("sys/class/infiniband/mlx5_9/ports/1/counters/port_rcv_data", "lots\n");
  dir.Write("sys/class/infiniband/mlx5_9/ports/1/state", "4: ACTIVE\n");
  auto s = ScrapeWith(&MakeRdmaCollector, dir.path().string());
  ASSERT_TRUE(s.status.ok()) << s.status.error().message;
  EXPECT_NE(s.text.find("{device=\"mlx5_8\",direction=\"rx\",port=\"1\"} 48"), std::string::npos)
      << s.text;
  EXPECT_TRUE(Has(s.text, "fabric_rdma_port_state{device=\"mlx5_9\",port=\"1\"} 4")) << s.text;
  EXPECT_TRUE(Has(s.text,
                  "fabric_collector_device_errors{collector=\"rdma\",device=\"mlx5_9/1\","
                  "source=\"counters\"} 1"))
      << s.text;
  EXPECT_EQ(s.text.find("device=\"mlx5_8/1\""), std::string::npos) << s.text;
}

}  // namespace
}  // namespace fabric
