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

namespace fabric {
namespace {

const std::string kRecording = std::string(kNicsTree) + "/rdma-netlink";

TEST(RdmaCollectorTest, QueuePairsAndCmIdsPerProcessAndPeer) {
  auto s = ScrapeWith(&MakeRdmaCollector, kNicsTree, "restrack_recording: " + kRecording + "\n");
  ASSERT_TRUE(s.status.ok()) << s.status.error().message;
  const std::string& t = s.text;
  // Kernel users by module; the peer from the QP's rdma_cm id, by address
  // (no fleet in this scrape).
  EXPECT_TRUE(Has(t,
                  "fabric_rdma_queue_pairs{command=\"[rpcrdma]\",device=\"mlx5_0\","
                  "peer=\"198.18.0.2\",port=\"1\",state=\"RTS\",type=\"RC\"} 2"))
      << t;
  // NCCL-style QPs connected without rdma_cm: the kernel knows no peer.
  EXPECT_TRUE(Has(t,
                  "fabric_rdma_queue_pairs{command=\"python3\",device=\"mlx5_0\","
                  "peer=\"unknown\",pid=\"31337\",port=\"1\",state=\"RTS\",type=\"RC\"} 4"));
  EXPECT_TRUE(Has(t,
                  "fabric_rdma_queue_pairs{command=\"python3\",device=\"mlx5_0\","
                  "peer=\"unknown\",pid=\"31337\",port=\"1\",state=\"ERR\",type=\"RC\"} 1"));
  // A process gone before its comm was read.
  EXPECT_TRUE(Has(t,
                  "fabric_rdma_queue_pairs{command=\"unknown\",device=\"mlx5_0\","
                  "peer=\"unknown\",pid=\"9999\",port=\"1\",state=\"RTS\",type=\"UD\"} 1"));
  EXPECT_TRUE(Has(t,
                  "fabric_rdma_cm_ids{command=\"ib_write_bw\",device=\"mlx5_0\","
                  "peer=\"2001:db8::7\",pid=\"7001\",port=\"1\",port_space=\"TCP\","
                  "state=\"CONNECT\"} 1"));
  EXPECT_TRUE(Has(t,
                  "fabric_rdma_cm_ids{command=\"rping\",device=\"mlx5_0\",peer=\"none\","
                  "pid=\"6110\",port=\"1\",port_space=\"TCP\",state=\"LISTEN\"} 1"));
  EXPECT_TRUE(Has(t, "fabric_rdma_resource_groups_folded{family=\"queue_pairs\"} 0"));
  // The port series are there beside them.
  EXPECT_TRUE(Has(t, "fabric_rdma_port_state{device=\"mlx5_0\",port=\"1\"} 4"));
}

TEST(RdmaCollectorTest, MaxSeriesFoldsTheSmallestGroupsIntoOther) {
  auto s = ScrapeWith(&MakeRdmaCollector, kNicsTree,
                      "restrack_recording: " + kRecording + "\nmax_series: 2\n");
  ASSERT_TRUE(s.status.ok()) << s.status.error().message;
  const std::string& t = s.text;
  // The two largest groups keep their process: python3's 4 RTS QPs and rpcrdma's 2.
  EXPECT_TRUE(Has(t,
                  "fabric_rdma_queue_pairs{command=\"python3\",device=\"mlx5_0\","
                  "peer=\"unknown\",pid=\"31337\",port=\"1\",state=\"RTS\",type=\"RC\"} 4"))
      << t;
  EXPECT_TRUE(Has(t,
                  "fabric_rdma_queue_pairs{command=\"other\",device=\"mlx5_0\",peer=\"other\","
                  "port=\"1\",state=\"RTS\",type=\"RC\"} 3"));
  EXPECT_EQ(t.find("command=\"nvme_rdma\""), std::string::npos);
  EXPECT_NE(t.find("fabric_rdma_resource_groups_folded{family=\"queue_pairs\"} "),
            std::string::npos);
}

TEST(RdmaCollectorTest, BrokenDumpFailsTheResourcePartAlone) {
  fabric::testing::TestDir dir;
  dir.Write("sys/class/infiniband/mlx5_8/ports/1/state", "4: ACTIVE\n");
  dir.Write("rdma-netlink/devices.nl", "not netlink at all, just text");
  auto s = ScrapeWith(&MakeRdmaCollector, dir.path().string(),
                      "restrack_recording: " + dir.path().string() + "/rdma-netlink\n");
  ASSERT_TRUE(s.status.ok()) << s.status.error().message;
  EXPECT_TRUE(Has(s.text, "fabric_rdma_port_state{device=\"mlx5_8\",port=\"1\"} 4")) << s.text;
  EXPECT_TRUE(Has(s.text,
                  "fabric_collector_device_errors{collector=\"rdma\",device=\"netlink\","
                  "source=\"restrack\"} 1"));
  EXPECT_EQ(s.text.find("fabric_rdma_queue_pairs"), std::string::npos);
}

TEST(RdmaCollectorTest, RestrackOffAndFixtureTreesWithoutRecordingReportNoResources) {
  auto off = ScrapeWith(&MakeRdmaCollector, kNicsTree,
                        "restrack: false\nrestrack_recording: " + kRecording + "\n");
  ASSERT_TRUE(off.status.ok());
  EXPECT_EQ(off.text.find("fabric_rdma_queue_pairs"), std::string::npos);
  auto plain = ScrapeWith(&MakeRdmaCollector, kNicsTree);
  ASSERT_TRUE(plain.status.ok());
  EXPECT_EQ(plain.text.find("fabric_rdma_resource_groups_folded"), std::string::npos);
}

}  // namespace
}  // namespace fabric
