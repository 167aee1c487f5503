// FEC text as ethtool prints it: totals only (RS-FEC), per-lane lines
// (ethtool 6.1) and the bracketed per-lane list (later ethtool), no
// statistics at all, and malformed counters that must fail with a line.
#include "common/parse/ethtool_fec_parse.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace fabric
