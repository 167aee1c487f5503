#include "exporter/collectors/netdev_collector.h"

#include <gtest/gtest.h>

#include "tests/unit/exporter/collectors/collector_harness.h"
#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

using testing::Has;
using testing::kNicsTree;
using testing::ScrapeWith;

TEST(NetdevCollectorTest, Mlx5FabricCountersAreTypedWithLabels) {
  auto s = ScrapeWith(&MakeNetdevCollector, kNicsTree);
  ASSERT_TRUE(s.status.ok()) << s.status.error().message;
  const std::string& t = s.text;
  EXPECT_TRUE(Has(t,
                  "fabric_netdev_driver_pause_frames_total{device=\"ens1f0np0\","
                  "direction=\"tx\"} 51234"))
      << t;
  EXPECT_TRUE(Has(t,
                  "fabric_netdev_phy_discards_total{device=\"ens1f0np0\",direction=\"rx\"} "
                  "4410"));
  EXPECT_TRUE(Has(t,
                  "fabric_netdev_out_of_buffer_drops_total{device=\"ens1f0np0\","
                  "direction=\"rx\"} 18231"));
  EXPECT_TRUE(Has(t,
                  "fabric_netdev_pci_signal_integrity_events_total{device=\"ens1f0np0\","
                  "direction=\"tx\"} 1471"));
  EXPECT_TRUE(Has(t,
                  "fabric_netdev_driver_priority_pause_frames_total{device=\"ens1f1np1\","
                  "direction=\"tx\",priority=\"3\"} 3558"));
  EXPECT_NE(t.find("# TYPE fabric_netdev_driver_pause_frames_total counter"), std::string::npos);
  // Standard pause statistics and settings.
  EXPECT_TRUE(Has(t,
                  "fabric_netdev_pause_frames_total{device=\"ens1f0np0\",direction=\"tx\","
                  "role=\"other\"} 51234"));
  EXPECT_TRUE(Has(
      t, "fabric_netdev_pause_enabled{device=\"ens1f0np0\",direction=\"tx\",role=\"other\"} 1"));
  EXPECT_TRUE(Has(t,
                  "fabric_netdev_info{device=\"ens1f0np0\",driver=\"mlx5_core\","
                  "driver_version=\"6.1.0-18-amd64\",firmware_version=\"22.39.1002 "
                  "(MT_0000000436)\",pci_address=\"0000:3b:00.0\"} 1"));
  EXPECT_TRUE(Has(t, "fabric_netdev_speed_bytes{device=\"ens1f0np0\"} 12500000000"));
  EXPECT_TRUE(Has(t,
                  "fabric_netdev_channels{bound=\"current\",device=\"ens1f0np0\","
                  "kind=\"combined\",role=\"other\"} 4"));
}

TEST(NetdevCollectorTest, AbsentIsAbsentNotZero) {
  auto s = ScrapeWith(&MakeNetdevCollector, kNicsTree);
  ASSERT_TRUE(s.status.ok());
  const std::string& t = s.text;
  // virtio has no pause recording, unknown speed and duplex: no series.
  EXPECT_EQ(t.find("fabric_netdev_pause_enabled{device=\"eth0\""), std::string::npos);
  EXPECT_EQ(t.find("fabric_netdev_speed_bytes{device=\"eth0\""), std::string::npos);
  EXPECT_EQ(t.find("fabric_netdev_full_duplex{device=\"eth0\""), std::string::npos);
  // ice reports pause settings without statistics.
  EXPECT_TRUE(
      Has(t, "fabric_netdev_pause_enabled{device=\"ens2f0\",direction=\"rx\",role=\"other\"} 0"));
  EXPECT_EQ(t.find("fabric_netdev_pause_frames_total{device=\"ens2f0\""), std::string::npos);
  // mlx5 has no ice-style XON counters.
  EXPECT_EQ(t.find("fabric_netdev_driver_pause_resume_frames_total{device=\"ens1f0np0\""),
            std::string::npos);
}

TEST(NetdevCollectorTest, UnknownStatisticsOnlyByIncludeRegex) {
  auto plain = ScrapeWith(&MakeNetdevCollector, kNicsTree);
  ASSERT_TRUE(plain.status.ok());
  EXPECT_EQ(plain.text.find("rx_cache_reuse"), std::string::npos);
  EXPECT_EQ(plain.text.find("fabric_netdev_driver_statistic"), std::string::npos);
  // Per-queue series are opt-in too.
  EXPECT_EQ(plain.text.find("fabric_netdev_queue_"), std::string::npos);

  auto included = ScrapeWith(&MakeNetdevCollector, kNicsTree,
                             "driver_stats_include: '^tx_vport_rdma_unicast_packets$'\n"
                             "queue_stats: true\n");
  ASSERT_TRUE(included.status.ok());
  EXPECT_TRUE(Has(included.text,
                  "fabric_netdev_driver_statistic{device=\"ens1f0np0\","
                  "statistic=\"tx_vport_rdma_unicast_packets\"} 2210334"))
      << included.text;
  EXPECT_EQ(included.text.find("rx_vport_rdma_unicast_packets"), std::string::npos);
  // The vport's RDMA bytes are typed: there without any include.
  EXPECT_TRUE(Has(plain.text,
                  "fabric_netdev_rdma_unicast_bytes_total{device=\"ens1f0np0\",direction=\"tx\"} "
                  "178034115"))
      << plain.text;
  EXPECT_TRUE(Has(included.text,
                  "fabric_netdev_queue_packets_total{device=\"ens2f0\","
                  "direction=\"rx\",queue=\"3\"} 13690018"));
  // A typed statistic is never duplicated as an untyped one.
  auto broad = ScrapeWith(&MakeNetdevCollector, kNicsTree, "driver_stats_include: 'pause'\n");
  ASSERT_TRUE(broad.status.ok());
  EXPECT_EQ(broad.text.find("statistic=\"tx_pause_ctrl_phy\""), std::string::npos);
  EXPECT_NE(broad.text.find("statistic=\"rx_global_pause\""), std::string::npos);
}

TEST(NetdevCollectorTest, InterfaceSelection) {
  auto physical = ScrapeWith(&MakeNetdevCollector, kNicsTree);
  EXPECT_EQ(physical.text.find("device=\"lo\""), std::string::npos);
  EXPECT_EQ(physical.text.find("device=\"docker0\""), std::string::npos);
  auto named = ScrapeWith(&MakeNetdevCollector, kNicsTree,
                          "interfaces: [lo]\ndevice_include: '^dock'\ndevice_exclude: '^ens2'\n");
  ASSERT_TRUE(named.status.ok());
  EXPECT_TRUE(Has(named.text, "fabric_netdev_mtu_bytes{device=\"lo\"} 65536"));
  EXPECT_TRUE(Has(named.text, "fabric_netdev_up{device=\"docker0\"} 0"));
  EXPECT_EQ(named.text.find("device=\"ens2f0\""), std::string::npos);
  EXPECT_NE(named.text.find("device=\"ens1f0np0\""), std::string::npos);
}

TEST(NetdevCollectorTest, EthtoolSourceNoneKeepsSysfsOnly) {
  auto s = ScrapeWith(&MakeNetdevCollector, kNicsTree, "ethtool_source: none\n");
  ASSERT_TRUE(s.status.ok());
  EXPECT_EQ(s.text.find("fabric_netdev_driver_pause_frames_total"), std::string::npos);
  // The PCI address still comes from the device link.
  EXPECT_NE(s.text.find("pci_address=\"0000:3b:00.0\""), std::string::npos);
  EXPECT_TRUE(Has(s.text, "fabric_netdev_bytes_total{device=\"eth0\",direction=\"tx\"} 82966"));
}

TEST(NetdevCollectorTest, BadConfigNamesTheKey) {
  SysRoot root(kNicsTree + "/proc", kNicsTree + "/sys");
  for (const char* yaml : {"ethtool_source: magic\n", "driver_stats_include: '('\n"}) {
    ConfigNode settings = ConfigNode::LoadString(yaml, "test.yml");
    try {
      MakeNetdevCollector({root, settings});
      ADD_FAILURE() << "accepted " << yaml;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("test.yml:1:"), std::string::npos) << e.what();
    }
  }
}

// Failure isolation per device: one interface's malformed recording drops
// only that interface's driver statistics; its other families and every
// other interface stay, and the error series names the interface and source.
TEST(NetdevCollectorTest, BrokenRecordingDropsOnlyThatInterfacesFamily) {
  fabric::testing::TestDir dir;
  for (const char* ifname : {"eth8", "eth9"}) {
    const std::string base = std::string("sys/class/net/") + ifname;
    dir.Write(base + "/mtu", "1500\n");
    dir.Write(base + "/ethtool.recorded/driver.txt",
              std::string("# ethtool -i ") + ifname + "\ndriver: mlx5_core\n");
  }
  dir.Write("sys/class/net/eth8/ethtool.recorded/stats.txt",
            "# ethtool -S eth8\nNIC statistics:\n     tx_pause_ctrl_phy: 7\n");
  dir.Write("sys/class/net/eth9/ethtool.recorded/stats.txt",
            "# ethtool -S eth9\nNIC statistics:\n     tx_pause_ctrl_phy: x\n");
  auto s = ScrapeWith(&MakeNetdevCollector, dir.path().string(), "interfaces: [eth8, eth9]\n");
  ASSERT_TRUE(s.status.ok()) << s.status.error().message;
  EXPECT_TRUE(Has(s.text, "fabric_netdev_mtu_bytes{device=\"eth9\"} 1500")) << s.text;
  EXPECT_TRUE(Has(s.text, "fabric_netdev_mtu_bytes{device=\"eth8\"} 1500")) << s.text;
  EXPECT_NE(s.text.find("fabric_netdev_driver_pause_frames_total{device=\"eth8\""),
            std::string::npos)
      << s.text;
  EXPECT_EQ(s.text.find("fabric_netdev_driver_pause_frames_total{device=\"eth9\""),
            std::string::npos)
      << s.text;
  EXPECT_TRUE(Has(s.text,
                  "fabric_collector_device_errors{collector=\"netdev\",device=\"eth9\","
                  "source=\"ethtool_stats\"} 1"))
      << s.text;
  EXPECT_EQ(s.text.find("fabric_collector_device_errors{collector=\"netdev\",device=\"eth8\""),
            std::string::npos)
      << s.text;
}

// Per-lane FEC statistics as the kernel reports them: mlx5 counts FC-FEC
// (BaseR) codewords per lane and RS-FEC for the port only (RS codewords are
// striped across lanes), so the recording is a 50GbE port on two 25G NRZ
// lanes with BaseR, and the kernel's total is the sum of its lanes. Each lane
// is its own series; the port total stays.
TEST(NetdevCollectorTest, BaserFecLanesAreSeriesPerLane) {
  fabric::testing::TestDir dir;
  dir.Write("sys/class/net/eth7/mtu", "9000\n");
  dir.Write("sys/class/net/eth7/ethtool.recorded/driver.txt",
            "# ethtool -i eth7\ndriver: mlx5_core\n");
  dir.Write("sys/class/net/eth7/ethtool.recorded/fec.txt",
            "# ethtool --include-statistics --show-fec eth7\n"
            "FEC parameters for eth7:\n"
            "Supported/Configured FEC encodings: Auto None BaseR RS\n"
            "Active FEC encoding: BaseR\n"
            "Statistics:\n"
            "  corrected_blocks: 1579\n"
            "    Lane 0: 1203\n"
            "    Lane 1: 376\n"
            "  uncorrectable_blocks: 2\n"
            "    Lane 0: 2\n"
            "    Lane 1: 0\n");
  auto s = ScrapeWith(&MakeNetdevCollector, dir.path().string(), "interfaces: [eth7]\n");
  ASSERT_TRUE(s.status.ok()) << s.status.error().message;
  const std::string& t = s.text;
  EXPECT_TRUE(
      Has(t, "fabric_netdev_fec_corrected_blocks_total{device=\"eth7\",role=\"other\"} 1579"))
      << t;
  EXPECT_TRUE(
      Has(t, "fabric_netdev_fec_uncorrectable_blocks_total{device=\"eth7\",role=\"other\"} 2"))
      << t;
  EXPECT_TRUE(Has(t,
                  "fabric_netdev_fec_lane_corrected_blocks_total{device=\"eth7\",lane=\"0\",role="
                  "\"other\"} 1203"))
      << t;
  EXPECT_TRUE(Has(t,
                  "fabric_netdev_fec_lane_corrected_blocks_total{device=\"eth7\",lane=\"1\",role="
                  "\"other\"} 376"))
      << t;
  EXPECT_TRUE(Has(t,
                  "fabric_netdev_fec_lane_uncorrectable_blocks_total{device=\"eth7\",lane=\"0\","
                  "role=\"other\"} 2"))
      << t;
  EXPECT_TRUE(Has(t,
                  "fabric_netdev_fec_lane_uncorrectable_blocks_total{device=\"eth7\",lane=\"1\","
                  "role=\"other\"} 0"))
      << t;
  EXPECT_EQ(t.find("lane=\"2\""), std::string::npos) << t;
  // mlx5 counts no corrected bits in FEC statistics: absent, not zero.
  EXPECT_EQ(t.find("fabric_netdev_fec_lane_corrected_bits_total"), std::string::npos) << t;
}

// A driver that counts the bits FEC corrected (ETHTOOL_A_FEC_STAT_CORR_BITS)
// gives the pre-FEC bit error ratio its first, driver-neutral source
// (instance_device:fabric_netdev_pre_fec_ber:rate5m): the port total and each
// lane the driver counts are their own series, as for codewords, and a
// counter the driver leaves out is absent, not zero.
TEST(NetdevCollectorTest, FecCorrectedBitsAreSeriesPerPortAndLane) {
  fabric::testing::TestDir dir;
  dir.Write("sys/class/net/eth6/mtu", "9000\n");
  dir.Write("sys/class/net/eth6/ethtool.recorded/fec.txt",
            "# ethtool --include-statistics --show-fec eth6\n"
            "FEC parameters for eth6:\n"
            "Supported/Configured FEC encodings: Auto RS\n"
            "Active FEC encoding: RS\n"
            "Statistics:\n"
            "  corrected_blocks: 1200\n"
            "  corrected_bits: 5000\n"
            "    Lane 0: 3000\n"
            "    Lane 1: 2000\n");
  auto s = ScrapeWith(&MakeNetdevCollector, dir.path().string(), "interfaces: [eth6]\n");
  ASSERT_TRUE(s.status.ok()) << s.status.error().message;
  const std::string& t = s.text;
  EXPECT_TRUE(Has(t, "fabric_netdev_fec_corrected_bits_total{device=\"eth6\",role=\"other\"} 5000"))
      << t;
  EXPECT_TRUE(Has(t,
                  "fabric_netdev_fec_lane_corrected_bits_total{device=\"eth6\",lane=\"0\",role="
                  "\"other\"} 3000"))
      << t;
  EXPECT_TRUE(Has(t,
                  "fabric_netdev_fec_lane_corrected_bits_total{device=\"eth6\",lane=\"1\",role="
                  "\"other\"} 2000"))
      << t;
  EXPECT_TRUE(
      Has(t, "fabric_netdev_fec_corrected_blocks_total{device=\"eth6\",role=\"other\"} 1200"))
      << t;
  EXPECT_EQ(t.find("fabric_netdev_fec_lane_corrected_blocks_total"), std::string::npos) << t;
  EXPECT_EQ(t.find("fabric_netdev_fec_uncorrectable_blocks_total"), std::string::npos) << t;
}

// The typing of driver statistics is reused between scrapes only while the
// driver reports the same names: a renamed, added or removed statistic is
// seen on the next scrape.
TEST(NetdevCollectorTest, DriverStatisticsFollowTheDriversNames) {
  fabric::testing::TestDir dir;
  dir.Write("sys/class/net/eth9/mtu", "1500\n");
  dir.Write("sys/class/net/eth9/ethtool.recorded/driver.txt",
            "# ethtool -i eth9\ndriver: mlx5_core\n");
  auto stats = [&](const std::string& lines) {
    dir.Write("sys/class/net/eth9/ethtool.recorded/stats.txt",
              "# ethtool -S eth9\nNIC statistics:\n" + lines);
  };
  SysRoot root(dir.path().string() + "/proc", dir.path().string() + "/sys");
  ConfigNode settings = ConfigNode::LoadString("interfaces: [eth9]\n", "test.yml");
  auto collector = MakeNetdevCollector({root, settings});
  auto scrape = [&] {
    MetricSink sink;
    Status status = collector->Collect(sink);
    EXPECT_TRUE(status.ok()) << status.error().message;
    return prometheus::TextSerializer().Serialize(sink.TakeSorted());
  };
  stats("     tx_pause_ctrl_phy: 5\n     rx_discards_phy: 7\n");
  std::string t = scrape();
  EXPECT_TRUE(
      Has(t, "fabric_netdev_driver_pause_frames_total{device=\"eth9\",direction=\"tx\"} 5"));
  EXPECT_TRUE(Has(t, "fabric_netdev_phy_discards_total{device=\"eth9\",direction=\"rx\"} 7"));
  stats("     tx_pause_ctrl_phy: 6\n     rx_discards_phy: 8\n");
  t = scrape();  // Same names: new values.
  EXPECT_TRUE(
      Has(t, "fabric_netdev_driver_pause_frames_total{device=\"eth9\",direction=\"tx\"} 6"));
  EXPECT_TRUE(Has(t, "fabric_netdev_phy_discards_total{device=\"eth9\",direction=\"rx\"} 8"));
  stats("     rx_discards_phy: 9\n     tx_pause_ctrl_phy: 10\n     rx_out_of_buffer: 11\n");
  t = scrape();  // Reordered and one more.
  EXPECT_TRUE(
      Has(t, "fabric_netdev_driver_pause_frames_total{device=\"eth9\",direction=\"tx\"} 10"));
  EXPECT_TRUE(Has(t, "fabric_netdev_phy_discards_total{device=\"eth9\",direction=\"rx\"} 9"));
  EXPECT_TRUE(
      Has(t, "fabric_netdev_out_of_buffer_drops_total{device=\"eth9\",direction=\"rx\"} 11"));
  stats("     rx_discards_phy: 12\n");
  t = scrape();  // One left.
  EXPECT_TRUE(Has(t, "fabric_netdev_phy_discards_total{device=\"eth9\",direction=\"rx\"} 12"));
  EXPECT_EQ(t.find("fabric_netdev_driver_pause_frames_total"), std::string::npos) << t;
  EXPECT_EQ(t.find("fabric_netdev_out_of_buffer_drops_total"), std::string::npos) << t;
}

}  // namespace
}  // namespace fabric
