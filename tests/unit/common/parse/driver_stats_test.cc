#include "common/parse/driver_stats.h"

#include <gtest/gtest.h>

namespace fabric {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

struct Case {
  const char* driver;
  const char* name;
  const char* metric;
  Labels labels;
  bool per_queue = false;
};

TEST(DriverStatsTest, TypesTheFabricCountersOfEachDriver) {
  const Case cases[] = {
      {"mlx5_core",
       "tx_pause_ctrl_phy",
       "fabric_netdev_driver_pause_frames_total",
       {{"direction", "tx"}}},
      {"mlx5_core",
       "rx_pause_ctrl_phy",
       "fabric_netdev_driver_pause_frames_total",
       {{"direction", "rx"}}},
      {"mlx5_core",
       "tx_prio3_pause",
       "fabric_netdev_driver_priority_pause_frames_total",
       {{"direction", "tx"}, {"priority", "3"}}},
      {"mlx5_core",
       "rx_prio7_pause_duration",
       "fabric_netdev_driver_priority_pause_duration_seconds_total",
       {{"direction", "rx"}, {"priority", "7"}}},
      {"mlx5_core", "rx_discards_phy", "fabric_netdev_phy_discards_total", {{"direction", "rx"}}},
      {"mlx5_core",
       "rx_out_of_buffer",
       "fabric_netdev_out_of_buffer_drops_total",
       {{"direction", "rx"}}},
      {"mlx5_core",
       "tx_pci_signal_integrity",
       "fabric_netdev_pci_signal_integrity_events_total",
       {{"direction", "tx"}}},
      {"mlx5_core",
       "rx_crc_errors_phy",
       "fabric_netdev_phy_crc_errors_total",
       {{"direction", "rx"}}},
      {"mlx5_core",
       "rx_symbol_err_phy",
       "fabric_netdev_phy_symbol_errors_total",
       {{"direction", "rx"}}},
      {"mlx5_core",
       "rx_corrected_bits_phy",
       "fabric_netdev_phy_corrected_bit_errors_total",
       {{"direction", "rx"}}},
      {"mlx5_core",
       "tx_pause_storm_warning_events",
       "fabric_netdev_pause_storm_events_total",
       {{"severity", "warning"}}},
      {"mlx5_core",
       "rx12_bytes",
       "fabric_netdev_queue_bytes_total",
       {{"direction", "rx"}, {"queue", "12"}},
       true},
      {"ice", "link_xoff_tx.nic", "fabric_netdev_driver_pause_frames_total", {{"direction", "tx"}}},
      {"ice",
       "tx_priority_3_xoff.nic",
       "fabric_netdev_driver_priority_pause_frames_total",
       {{"direction", "tx"}, {"priority", "3"}}},
      {"ice",
       "rx_priority_0_xon.nic",
       "fabric_netdev_driver_priority_pause_resume_frames_total",
       {{"direction", "rx"}, {"priority", "0"}}},
      {"ice",
       "rx_queue_3_packets",
       "fabric_netdev_queue_packets_total",
       {{"direction", "rx"}, {"queue", "3"}},
       true},
      {"i40e",
       "port.tx_priority_5_xoff_tx",
       "fabric_netdev_driver_priority_pause_frames_total",
       {{"direction", "tx"}, {"priority", "5"}}},
      {"i40e",
       "tx-07.tx_bytes",
       "fabric_netdev_queue_bytes_total",
       {{"direction", "tx"}, {"queue", "7"}},
       true},
      {"bnxt_en",
       "tx_pfc_ena_frames_pri2",
       "fabric_netdev_driver_priority_pause_frames_total",
       {{"direction", "tx"}, {"priority", "2"}}},
      {"mlx5_core",
       "tx_vport_rdma_unicast_bytes",
       "fabric_netdev_rdma_unicast_bytes_total",
       {{"direction", "tx"}}},
      {"bnxt_en", "rx_fcs_err_frames", "fabric_netdev_phy_crc_errors_total", {{"direction", "rx"}}},
      {"virtio_net",
       "rx_queue_0_bytes",
       "fabric_netdev_queue_bytes_total",
       {{"direction", "rx"}, {"queue", "0"}},
       true},
      {"virtio_net",
       "rx1_drops",
       "fabric_netdev_queue_drops_total",
       {{"direction", "rx"}, {"queue", "1"}},
       true},
      {"veth",
       "rx_queue_0_drops",
       "fabric_netdev_queue_drops_total",
       {{"direction", "rx"}, {"queue", "0"}},
       true},
  };
  for (const auto& c : cases) {
    auto typed = ClassifyDriverStat(c.driver, c.name);
    ASSERT_TRUE(typed.has_value()) << c.driver << " " << c.name;
    EXPECT_EQ(typed->metric, c.metric) << c.name;
    EXPECT_EQ(typed->labels, c.labels) << c.name;
    EXPECT_EQ(typed->per_queue, c.per_queue) << c.name;
  }
}

TEST(DriverStatsTest, PauseDurationsAreConvertedToSeconds) {
  auto typed = ClassifyDriverStat("mlx5_core", "tx_global_pause_duration");
  ASSERT_TRUE(typed.has_value());
  EXPECT_DOUBLE_EQ(typed->scale, 1e-6);
  EXPECT_DOUBLE_EQ(ClassifyDriverStat("mlx5_core", "tx_pause_ctrl_phy")->scale, 1);
}

TEST(DriverStatsTest, UnknownNamesAndOtherDriversAreNotTyped) {
  EXPECT_FALSE(ClassifyDriverStat("mlx5_core", "rx_cache_reuse"));
  EXPECT_FALSE(ClassifyDriverStat("mlx5_core", "rx_vport_rdma_unicast_packets"));
  // A name typed for one driver means nothing for another.
  EXPECT_FALSE(ClassifyDriverStat("ice", "tx_pause_ctrl_phy"));
  EXPECT_FALSE(ClassifyDriverStat("e1000e", "rx_queue_0_packets"));
  // '%' stands for digits only, and not for a long id.
  EXPECT_FALSE(ClassifyDriverStat("mlx5_core", "rx_prio_pause"));
  EXPECT_FALSE(ClassifyDriverStat("mlx5_core", "rxx_packets"));
  EXPECT_FALSE(ClassifyDriverStat("mlx5_core", "rx_xsk_packets"));
  EXPECT_FALSE(ClassifyDriverStat("mlx5_core", "rx123456_packets"));
  EXPECT_FALSE(ClassifyDriverStat("mlx5_core", "rx_prio3_pause_transition"));
}

}  // namespace
}  // namespace fabric
