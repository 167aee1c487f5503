#include "exporter/collectors/receive_path.h"

#include <gtest/gtest.h>

#include "common/kernel/net_class.h"
#include "exporter/collectors/netdev_collector.h"
#include "tests/unit/exporter/collectors/collector_harness.h"
#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

using testing::Has;
using testing::kNicsTree;
using testing::ScrapeWith;

// A two-node host in the kernel's formats: node0 CPUs 0-3, node1 CPUs 4-7.
class ReceivePathTest : public ::testing::Test {
 protected:
  ReceivePathTest() : root_((dir_.path() / "proc").string(), (dir_.path() / "sys").string()) {
    host_.cpu_nodes = {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 1}, {5, 1}, {6, 1}, {7, 1}};
  }
  void Irq(int irq, const std::string& affinity_list) const {
    dir_.Write("sys/class/net/eth0/device/msi_irqs/" + std::to_string(irq), "msix\n");
    dir_.Write("proc/irq/" + std::to_string(irq) + "/smp_affinity_list", affinity_list + "\n");
  }
  AttributeDir Eth0() const { return NetInterfaceDir(root_, "eth0"); }

  fabric::testing::TestDir dir_;
  SysRoot root_;
  ReceivePathHost host_;
};

TEST_F(ReceivePathTest, CountsInterruptsWithNoCpuOnTheNicsNode) {
  dir_.Write("sys/class/net/eth0/device/numa_node", "0\n");
  Irq(40, "0-7");  // Spans both nodes: may run on node 0, so on the node.
  Irq(41, "1");
  Irq(42, "5");
  Irq(43, "4,6-7");
  auto p = ReadIrqPlacement(root_, "eth0", Eth0(), host_);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->numa_node, 0);
  EXPECT_EQ(p->irqs, 4);
  EXPECT_EQ(p->irqs_off_node, 2);
  EXPECT_EQ(p->cpus, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST_F(ReceivePathTest, AnInterruptFreedBetweenListingAndReadIsNotCounted) {
  dir_.Write("sys/class/net/eth0/device/numa_node", "1\n");
  Irq(40, "4");
  dir_.Write("sys/class/net/eth0/device/msi_irqs/41", "msix\n");  // No /proc/irq/41.
  auto p = ReadIrqPlacement(root_, "eth0", Eth0(), host_);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->irqs, 1);
  EXPECT_EQ(p->irqs_off_node, 0);
  EXPECT_EQ(p->cpus, (std::vector<int>{4}));
}

TEST_F(ReceivePathTest, OffNodeIsUnknownWithoutANodeOrACpuMap) {
  Irq(40, "5");
  auto no_node = ReadIrqPlacement(root_, "eth0", Eth0(), host_);
  ASSERT_TRUE(no_node.ok());
  EXPECT_FALSE(no_node->numa_node.has_value());
  EXPECT_EQ(no_node->irqs, 1);
  EXPECT_FALSE(no_node->irqs_off_node.has_value());

  dir_.Write("sys/class/net/eth0/device/numa_node", "-1\n");  // No NUMA: the kernel says -1.
  EXPECT_FALSE(ReadIrqPlacement(root_, "eth0", Eth0(), host_)->irqs_off_node.has_value());

  dir_.Write("sys/class/net/eth0/device/numa_node", "0\n");
  ReceivePathHost no_map;
  EXPECT_FALSE(ReadIrqPlacement(root_, "eth0", Eth0(), no_map)->irqs_off_node.has_value());
}

TEST_F(ReceivePathTest, NoMsiIrqsIsZeroInterruptsAndABrokenAffinityAnError) {
  dir_.Write("sys/class/net/eth0/mtu", "1500\n");
  auto none = ReadIrqPlacement(root_, "eth0", Eth0(), host_);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->irqs, 0);
  MetricSink sink;
  EmitIrqPlacement(*none, {{"device", "eth0"}}, sink);
  EXPECT_TRUE(sink.TakeSorted().empty());

  Irq(40, "3-1");
  auto broken = ReadIrqPlacement(root_, "eth0", Eth0(), host_);
  ASSERT_FALSE(broken.ok());
  EXPECT_FALSE(broken.absent());
  EXPECT_NE(broken.error().message.find("irq/40/smp_affinity_list"), std::string::npos)
      << broken.error().message;
}

TEST_F(ReceivePathTest, QueuesWithSteeringMasks) {
  // 40 CPUs: the kernel prints the mask in 32-bit words, highest first.
  dir_.Write("sys/class/net/eth0/queues/rx-0/rps_cpus", "00,00000000\n");
  dir_.Write("sys/class/net/eth0/queues/rx-1/rps_cpus", "80,00000000\n");
  dir_.Write("sys/class/net/eth0/queues/rx-10/rps_cpus", "00,0000000f\n");
  dir_.Write("sys/class/net/eth0/queues/tx-0/xps_cpus", "00,00000001\n");
  dir_.Write("sys/class/net/eth0/queues/tx-1/xps_cpus", "00,00000002\n");
  auto q = ReadQueueSteering(Eth0());
  ASSERT_TRUE(q.ok()) << q.error().message;
  EXPECT_EQ(q->rx_queues, 3);
  EXPECT_EQ(q->tx_queues, 2);
  EXPECT_EQ(q->rps_queues, 2);
  EXPECT_EQ(q->xps_queues, 2);
}

TEST_F(ReceivePathTest, AKernelWithoutMasksLeavesTheCountUnknown) {
  // CONFIG_RPS off: the queue directories exist without rps_cpus/xps_cpus.
  dir_.Write("sys/class/net/eth0/queues/rx-0/rps_flow_cnt", "0\n");
  dir_.Write("sys/class/net/eth0/queues/tx-0/tx_maxrate", "0\n");
  auto q = ReadQueueSteering(Eth0());
  ASSERT_TRUE(q.ok()) << q.error().message;
  EXPECT_EQ(q->rx_queues, 1);
  EXPECT_FALSE(q->rps_queues.has_value());
  EXPECT_FALSE(q->xps_queues.has_value());
  MetricSink sink;
  EmitQueueSteering(*q, {{"device", "eth0"}}, sink);
  const std::string text = prometheus::TextSerializer().Serialize(sink.TakeSorted());
  EXPECT_TRUE(Has(text, "fabric_netdev_queues{device=\"eth0\",direction=\"rx\"} 1")) << text;
  EXPECT_EQ(text.find("fabric_netdev_steered_queues"), std::string::npos) << text;

  dir_.Write("sys/class/net/eth0/queues/rx-0/rps_cpus", "zz\n");
  EXPECT_FALSE(ReadQueueSteering(Eth0()).ok());
}

TEST_F(ReceivePathTest, GovernorOfMostCpusReadOncePerCpu) {
  for (int cpu : {0, 1, 2}) {
    dir_.Write("sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/scaling_governor",
               cpu == 0 ? "performance\n" : "powersave\n");
  }
  auto g = ReadGovernor(root_, {0, 1, 2}, host_);
  ASSERT_TRUE(g.ok()) << g.error().message;
  ASSERT_TRUE(g->has_value());
  EXPECT_EQ((*g)->governor, "powersave");
  EXPECT_EQ((*g)->code, 2);
  EXPECT_EQ(host_.governors.size(), 3u);
  // The host keeps what it read: a second NIC on the same CPUs reads nothing.
  std::filesystem::remove_all(dir_.path() / "sys/devices/system/cpu");
  auto again = ReadGovernor(root_, {0, 1, 2}, host_);
  ASSERT_TRUE(again.ok() && again->has_value());
  EXPECT_EQ((*again)->governor, "powersave");
}

TEST_F(ReceivePathTest, GovernorTiesGoToTheFirstNameAndNoCpufreqIsNone) {
  dir_.Write("sys/devices/system/cpu/cpu4/cpufreq/scaling_governor", "schedutil\n");
  dir_.Write("sys/devices/system/cpu/cpu5/cpufreq/scaling_governor", "acme_boost\n");
  auto tie = ReadGovernor(root_, {4, 5}, host_);
  ASSERT_TRUE(tie.ok() && tie->has_value());
  EXPECT_EQ((*tie)->governor, "acme_boost");
  EXPECT_EQ((*tie)->code, 7);  // other
  auto none = ReadGovernor(root_, {6, 7}, host_);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

// The recorded two-node host in tests/fixtures/nics: ens1f0np0 and ens1f1np1
// share node 0, but ens1f1np1's interrupts all sit on node 1's CPUs.
// (No fleet config here, so every role is "other"; the golden test has them.)
TEST(ReceivePathNicsTreeTest, FixtureNicsPlacementSteeringAndGovernor) {
  auto s = ScrapeWith(&MakeNetdevCollector, kNicsTree);
  ASSERT_TRUE(s.status.ok()) << s.status.error().message;
  const std::string& t = s.text;
  EXPECT_TRUE(Has(t, "fabric_netdev_numa_node{device=\"ens1f0np0\",role=\"other\"} 0")) << t;
  EXPECT_TRUE(Has(t, "fabric_netdev_irqs{device=\"ens1f0np0\",role=\"other\"} 5"));
  EXPECT_TRUE(Has(t, "fabric_netdev_irqs_off_node{device=\"ens1f0np0\",role=\"other\"} 0"));
  EXPECT_TRUE(Has(t, "fabric_netdev_irqs_off_node{device=\"ens1f1np1\",role=\"other\"} 5"));
  EXPECT_TRUE(Has(t, "fabric_netdev_irqs_off_node{device=\"ens2f0\",role=\"other\"} 0"));
  EXPECT_TRUE(Has(t,
                  "fabric_netdev_steered_queues{device=\"ens1f0np0\",direction=\"rx\","
                  "role=\"other\"} 0"));
  EXPECT_TRUE(Has(t,
                  "fabric_netdev_steered_queues{device=\"ens1f1np1\",direction=\"rx\","
                  "role=\"other\"} 4"));
  EXPECT_TRUE(Has(t,
                  "fabric_netdev_steered_queues{device=\"ens1f0np0\",direction=\"tx\","
                  "role=\"other\"} 4"));
  EXPECT_TRUE(Has(t,
                  "fabric_netdev_cpu_governor{device=\"ens1f0np0\",governor=\"performance\","
                  "role=\"other\"} 1"));
  EXPECT_TRUE(Has(t,
                  "fabric_netdev_cpu_governor{device=\"ens1f1np1\",governor=\"powersave\","
                  "role=\"other\"} 2"));
  // virtio: no NUMA node, no MSI vectors of its own, one queue without RPS.
  EXPECT_EQ(t.find("fabric_netdev_numa_node{device=\"eth0\""), std::string::npos);
  EXPECT_EQ(t.find("fabric_netdev_cpu_governor{device=\"eth0\""), std::string::npos);
  EXPECT_TRUE(
      Has(t, "fabric_netdev_steered_queues{device=\"eth0\",direction=\"rx\",role=\"other\"} 0"));
}

}  // namespace
}  // namespace fabric
