#include "common/parse/ethtool_parse.h"

#include <gtest/gtest.h>
#include <linux/ethtool_netlink.h>

#include "tests/unit/common/parse/netlink_reply.h"

namespace fabric {
namespace {

TEST(EthtoolParseTest, RecordedCommandLine) {
  struct Case {
    const char* line;
    EthtoolCommand command;
  } cases[] = {
      {"# ethtool -i ens1f0np0", EthtoolCommand::kDriverInfo},
      {"$ ethtool -S ens1f0np0", EthtoolCommand::kStats},
      {"# ethtool --include-statistics -a ens1f0np0", EthtoolCommand::kPause},
      {"# ethtool -I -a ens1f0np0", EthtoolCommand::kPause},
      {"ethtool --show-channels ens1f0np0", EthtoolCommand::kChannels},
      {"# ethtool -g ens1f0np0", EthtoolCommand::kRings},
      {"# ethtool --include-statistics --show-fec ens1f0np0", EthtoolCommand::kFec},
      {"# ethtool -c ens1f0np0", EthtoolCommand::kCoalesce},
      {"# ethtool -k ens1f0np0", EthtoolCommand::kFeatures},
  };
  for (const auto& c : cases) {
    auto r = ParseRecordedCommandLine(c.line, "f");
    ASSERT_TRUE(r.ok()) << c.line << ": " << r.error().message;
    EXPECT_EQ(r->command, c.command) << c.line;
    EXPECT_EQ(r->interface, "ens1f0np0");
  }
  EXPECT_FALSE(ParseRecordedCommandLine("NIC statistics:", "f").ok());
  EXPECT_FALSE(ParseRecordedCommandLine("# ethtool -e eth0", "f").ok());
  EXPECT_FALSE(ParseRecordedCommandLine("# ethtool -S -i eth0", "f").ok());
  auto bad = ParseRecordedCommandLine("# ip -s link", "rec/stats.txt");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("rec/stats.txt:1: ", 0), 0u) << bad.error().message;
}

TEST(EthtoolParseTest, DriverInfoWithEmptyFirmware) {
  auto info = ParseEthtoolDriverInfo(
      "driver: virtio_net\nversion: 1.0.0\nfirmware-version: \nexpansion-rom-version: \n"
      "bus-info: 0000:00:03.0\nsupports-statistics: yes\n",
      "f");
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->driver, "virtio_net");
  EXPECT_EQ(info->version, "1.0.0");
  EXPECT_EQ(info->firmware_version, "");
  EXPECT_EQ(info->bus_info, "0000:00:03.0");
  auto fw = ParseEthtoolDriverInfo(
      "driver: mlx5_core\nfirmware-version: 22.39.1002 (MT_0000000436)", "f");
  ASSERT_TRUE(fw.ok());
  EXPECT_EQ(fw->firmware_version, "22.39.1002 (MT_0000000436)");
  EXPECT_FALSE(ParseEthtoolDriverInfo("version: 1.0\n", "f").ok());
  EXPECT_FALSE(ParseEthtoolDriverInfo("driver mlx5\n", "f").ok());
}

TEST(EthtoolParseTest, StatisticsKeepOrderAndNamesWithColons) {
  auto stats = ParseEthtoolStats(
      "\nNIC statistics:\n     rx_packets: 12\n     tx_pause_ctrl_phy: 51234\n"
      "     [0]: rx_ucast_packets: 7\n     big: 18446744073709551615\n",
      "f");
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  ASSERT_EQ(stats->size(), 4u);
  EXPECT_EQ((*stats)[0], (std::pair<std::string, uint64_t>{"rx_packets", 12}));
  EXPECT_EQ((*stats)[1].second, 51234u);
  EXPECT_EQ((*stats)[2].first, "[0]: rx_ucast_packets");
  EXPECT_EQ((*stats)[3].second, 18446744073709551615u);
}

TEST(EthtoolParseTest, BrokenStatisticsNameFileAndLine) {
  auto bad = ParseEthtoolStats("\nNIC statistics:\n     rx_packets: lots\n", "rec/s.txt");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("rec/s.txt:3: ", 0), 0u) << bad.error().message;
  EXPECT_FALSE(ParseEthtoolStats("NIC statistics:\n  no colon here\n", "f").ok());
  EXPECT_FALSE(ParseEthtoolStats("NIC statistics:\n  rx: -1\n", "f").ok());
}

TEST(EthtoolParseTest, PauseWithAndWithoutStatistics) {
  auto with = ParseEthtoolPause(
      "Pause parameters for ens1f0np0:\nAutonegotiate:\toff\nRX:\t\ton\nTX:\t\ton\n"
      "RX negotiated: on\nTX negotiated: on\nStatistics:\n  tx_pause_frames: 51234\n"
      "  rx_pause_frames: 15\n",
      "f");
  ASSERT_TRUE(with.ok()) << with.error().message;
  EXPECT_EQ(with->autoneg, false);
  EXPECT_EQ(with->rx, true);
  EXPECT_EQ(with->tx, true);
  EXPECT_EQ(with->tx_frames, 51234u);
  EXPECT_EQ(with->rx_frames, 15u);
  auto without = ParseEthtoolPause(
      "Pause parameters for ens2f0:\nAutonegotiate:\toff\nRX:\toff\nTX:\toff\n", "f");
  ASSERT_TRUE(without.ok());
  EXPECT_FALSE(without->tx_frames.has_value());  // Absent, not zero.
  EXPECT_FALSE(without->rx_frames.has_value());
  EXPECT_FALSE(ParseEthtoolPause("RX: maybe\n", "f").ok());
  EXPECT_FALSE(ParseEthtoolPause("Statistics:\n  tx_pause_frames: x\n", "f").ok());
  EXPECT_FALSE(ParseEthtoolPause("", "f").ok());
}

TEST(EthtoolParseTest, ChannelsAndRingsSkipNotAvailable) {
  auto ch = ParseEthtoolLimits(
      "Channel parameters for eth0:\nPre-set maximums:\nRX:\t\tn/a\nTX:\t\tn/a\nOther:\t\t1\n"
      "Combined:\t63\nCurrent hardware settings:\nRX:\t\tn/a\nTX:\t\tn/a\nOther:\t\t1\n"
      "Combined:\t8\n",
      "f");
  ASSERT_TRUE(ch.ok()) << ch.error().message;
  ASSERT_EQ(ch->size(), 2u);
  EXPECT_EQ((*ch)[0].kind, "other");
  EXPECT_EQ((*ch)[1].kind, "combined");
  EXPECT_EQ((*ch)[1].max, 63u);
  EXPECT_EQ((*ch)[1].current, 8u);
  auto rings = ParseEthtoolLimits(
      "Ring parameters for eth0:\nPre-set maximums:\nRX:\t\t8192\nRX Mini:\tn/a\nRX Jumbo:\tn/a\n"
      "TX:\t\t8192\nCurrent hardware settings:\nRX:\t\t1024\nRX Mini:\tn/a\nRX Jumbo:\tn/a\n"
      "TX:\t\t1024\nRX Buf Len:\t\tn/a\nTX Push:\toff\n",
      "f");
  ASSERT_TRUE(rings.ok()) << rings.error().message;
  ASSERT_EQ(rings->size(), 2u);
  EXPECT_EQ((*rings)[0].kind, "rx");
  EXPECT_EQ((*rings)[0].current, 1024u);
  EXPECT_FALSE(ParseEthtoolLimits("RX: 12\n", "f").ok());  // No section header.
  EXPECT_FALSE(ParseEthtoolLimits("Pre-set maximums:\nRX: many\n", "f").ok());
}

// ETHTOOL_MSG_PAUSE_GET_REPLY with ETHTOOL_FLAG_STATS (net/ethtool/pause.c):
// the three settings as u8, the statistics nest with 64-bit counters after
// a pad attribute; a driver without pause statistics sends an empty nest.
TEST(EthtoolParseTest, PauseNetlinkReply) {
  testing::NlAttrs header;
  header.PutU32(ETHTOOL_A_HEADER_DEV_INDEX, 4).PutString(ETHTOOL_A_HEADER_DEV_NAME, "ens1f0np0");
  testing::NlAttrs stats;
  stats.Put(ETHTOOL_A_PAUSE_STAT_PAD, {})
      .PutU64(ETHTOOL_A_PAUSE_STAT_TX_FRAMES, 51234)
      .Put(ETHTOOL_A_PAUSE_STAT_PAD, {})
      .PutU64(ETHTOOL_A_PAUSE_STAT_RX_FRAMES, 15);
  testing::NlAttrs a;
  a.Nest(ETHTOOL_A_PAUSE_HEADER, header)
      .PutU8(ETHTOOL_A_PAUSE_AUTONEG, 0)
      .PutU8(ETHTOOL_A_PAUSE_RX, 1)
      .PutU8(ETHTOOL_A_PAUSE_TX, 1)
      .Nest(ETHTOOL_A_PAUSE_STATS, stats);
  const std::string msg = testing::GenlMessage(0x15, ETHTOOL_MSG_PAUSE_GET_REPLY, a);
  EthtoolPause p = ParseEthtoolPauseAttributes(testing::GenlAttributes(msg));
  EXPECT_EQ(p.autoneg, false);
  EXPECT_EQ(p.rx, true);
  EXPECT_EQ(p.tx, true);
  EXPECT_EQ(p.tx_frames, 51234u);
  EXPECT_EQ(p.rx_frames, 15u);

  testing::NlAttrs no_stats;
  no_stats.PutU8(ETHTOOL_A_PAUSE_RX, 0).Nest(ETHTOOL_A_PAUSE_STATS, testing::NlAttrs());
  EthtoolPause q = ParseEthtoolPauseAttributes(no_stats.bytes());
  EXPECT_EQ(q.rx, false);
  EXPECT_FALSE(q.tx.has_value());
  EXPECT_FALSE(q.tx_frames.has_value());
}

}  // namespace
}  // namespace fabric
