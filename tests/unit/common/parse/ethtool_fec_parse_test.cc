// FEC text as ethtool prints it: totals only (RS-FEC), per-lane lines
// (ethtool 6.1) and the bracketed per-lane list (later ethtool), no
// statistics at all, and malformed counters that must fail with a line.
#include "common/parse/ethtool_fec_parse.h"

#include <gtest/gtest.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>

#include "tests/unit/common/parse/netlink_reply.h"

namespace fabric {
namespace {

TEST(EthtoolFecParseTest, TotalsOnly) {
  auto fec = ParseEthtoolFecText(
      "FEC parameters for ens1f0np0:\nSupported/Configured FEC encodings: Auto RS BaseR\n"
      "Active FEC encoding: RS\nStatistics:\n  corrected_blocks: 48213\n"
      "  uncorrectable_blocks: 0\n",
      "fec.txt");
  ASSERT_TRUE(fec.ok()) << fec.error().message;
  EXPECT_EQ(fec->active, "rs");
  EXPECT_EQ(fec->corrected_blocks.total, 48213u);
  EXPECT_TRUE(fec->corrected_blocks.lanes.empty());
  EXPECT_EQ(fec->uncorrectable_blocks.total, 0u);
  EXPECT_FALSE(fec->corrected_bits.total);
  EXPECT_TRUE(fec->has_statistics());
}

TEST(EthtoolFecParseTest, PerLaneBothForms) {
  auto lines = ParseEthtoolFecText(
      "Active FEC encoding: BaseR\nStatistics:\n  corrected_blocks: 30\n    Lane 0: 10\n"
      "    Lane 1: 20\n  uncorrectable_blocks: 1\n    Lane 0: 1\n    Lane 1: 0\n",
      "fec.txt");
  ASSERT_TRUE(lines.ok()) << lines.error().message;
  EXPECT_EQ(lines->active, "baser");
  EXPECT_EQ(lines->corrected_blocks.lanes, (std::vector<uint64_t>{10, 20}));
  EXPECT_EQ(lines->uncorrectable_blocks.lanes, (std::vector<uint64_t>{1, 0}));
  auto bracket = ParseEthtoolFecText(
      "Active FEC encoding: BaseR\nStatistics:\n  corrected_blocks: 30 [ per_lane: 10, 20 ]\n",
      "fec.txt");
  ASSERT_TRUE(bracket.ok()) << bracket.error().message;
  EXPECT_EQ(bracket->corrected_blocks.total, 30u);
  EXPECT_EQ(bracket->corrected_blocks.lanes, (std::vector<uint64_t>{10, 20}));
}

TEST(EthtoolFecParseTest, NoStatisticsIsNotAnError) {
  auto fec = ParseEthtoolFecText("FEC parameters for e:\nActive FEC encoding: Off\n", "fec.txt");
  ASSERT_TRUE(fec.ok()) << fec.error().message;
  EXPECT_EQ(fec->active, "off");
  EXPECT_FALSE(fec->has_statistics());
}

TEST(EthtoolFecParseTest, MalformedCountersNameTheLine) {
  auto bad = ParseEthtoolFecText("Active FEC encoding: RS\nStatistics:\n  corrected_blocks: 12x\n",
                                 "fec.txt");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("fec.txt:3: ", 0), 0u) << bad.error().message;
  EXPECT_FALSE(ParseEthtoolFecText("Statistics:\n  corrected_blocks: 1\n", "f").ok());
  EXPECT_FALSE(ParseEthtoolFecText("", "f").ok());
}

// ETHTOOL_MSG_FEC_GET_REPLY as the kernel builds it (net/ethtool/fec.c):
// each counter an array of u64, the total first, then one per lane, padded
// by ETHTOOL_A_FEC_STAT_PAD for 64-bit alignment.
std::string U64s(std::initializer_list<uint64_t> values) {
  std::string out;
  for (uint64_t v : values) out.append(reinterpret_cast<const char*>(&v), sizeof v);
  return out;
}

TEST(EthtoolFecParseTest, NetlinkReplyWithLanes) {
  testing::NlAttrs stats;
  stats.Put(ETHTOOL_A_FEC_STAT_PAD, {})
      .Put(ETHTOOL_A_FEC_STAT_CORRECTED, U64s({300, 100, 200}))
      .Put(ETHTOOL_A_FEC_STAT_PAD, {})
      .Put(ETHTOOL_A_FEC_STAT_UNCORR, U64s({2, 2, 0}))
      .Put(ETHTOOL_A_FEC_STAT_PAD, {})
      .Put(ETHTOOL_A_FEC_STAT_CORR_BITS, U64s({4096}));
  testing::NlAttrs a;
  a.PutU32(ETHTOOL_A_FEC_AUTO, 0)
      .PutU32(ETHTOOL_A_FEC_ACTIVE, ETHTOOL_LINK_MODE_FEC_RS_BIT)
      .Nest(ETHTOOL_A_FEC_STATS, stats);
  const std::string msg = testing::GenlMessage(0x15, ETHTOOL_MSG_FEC_GET_REPLY, a);
  auto fec = ParseEthtoolFecAttributes(testing::GenlAttributes(msg));
  ASSERT_TRUE(fec.ok()) << fec.error().message;
  EXPECT_EQ(fec->active, "rs");
  EXPECT_EQ(fec->corrected_blocks.total, 300u);
  EXPECT_EQ(fec->corrected_blocks.lanes, (std::vector<uint64_t>{100, 200}));
  EXPECT_EQ(fec->uncorrectable_blocks.lanes, (std::vector<uint64_t>{2, 0}));
  EXPECT_EQ(fec->corrected_bits.total, 4096u);
  EXPECT_TRUE(fec->corrected_bits.lanes.empty());
}

TEST(EthtoolFecParseTest, NetlinkReplyWithoutStatisticsOrWithBadOnes) {
  testing::NlAttrs plain;
  plain.PutU32(ETHTOOL_A_FEC_ACTIVE, ETHTOOL_LINK_MODE_FEC_BASER_BIT);
  auto fec = ParseEthtoolFecAttributes(plain.bytes());
  ASSERT_TRUE(fec.ok());
  EXPECT_EQ(fec->active, "baser");
  EXPECT_FALSE(fec->has_statistics());

  testing::NlAttrs odd;
  odd.Put(ETHTOOL_A_FEC_STAT_CORRECTED, std::string(12, '\1'));  // Not a whole u64.
  testing::NlAttrs a;
  a.Nest(ETHTOOL_A_FEC_STATS, odd);
  EXPECT_FALSE(ParseEthtoolFecAttributes(a.bytes()).ok());

  testing::NlAttrs many;  // 1 + 9 lanes: more than ETHTOOL_MAX_LANES.
  many.Put(ETHTOOL_A_FEC_STAT_UNCORR, U64s({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  testing::NlAttrs b;
  b.Nest(ETHTOOL_A_FEC_STATS, many);
  EXPECT_FALSE(ParseEthtoolFecAttributes(b.bytes()).ok());
}

}  // namespace
}  // namespace fabric
