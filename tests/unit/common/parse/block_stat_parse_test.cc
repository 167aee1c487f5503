#include "common/parse/block_stat_parse.h"

#include <gtest/gtest.h>

#include <string>

namespace fabric {
namespace {

// The three lengths of /sys/block/DEV/stat, as the kernel pads them.
TEST(BlockStatParseTest, ReadsElevenFifteenAndSeventeenFields) {
  const char* texts[] = {
      "    1843        0  3774464      512  2611340        0 5342109696  1855004        0  "
      "1204530  1856220\n",
      "    1843        0  3774464      512  2611340        0 5342109696  1855004        0  "
      "1204530  1856220        0        0        0        0\n",
      "    1843        0  3774464      512  2611340        0 5342109696  1855004        0  "
      "1204530  1856220        0        0        0        0      402      704\n",
  };
  for (const char* text : texts) {
    auto r = ParseBlockStat(text, "stat");
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->read_ios, 1843u);
    EXPECT_EQ(r->read_sectors, 3774464u);
    EXPECT_EQ(r->read_ticks_ms, 512u);
    EXPECT_EQ(r->write_ios, 2611340u);
    EXPECT_EQ(r->write_sectors, 5342109696u);
    EXPECT_EQ(r->write_ticks_ms, 1855004u);
    EXPECT_EQ(r->in_flight, 0u);
    EXPECT_EQ(r->io_ticks_ms, 1204530u);
  }
}

TEST(BlockStatParseTest, BrokenInputNamesFileAndField) {
  auto short_line = ParseBlockStat("1 2 3\n", "nvme1c1n1/stat");
  ASSERT_FALSE(short_line.ok());
  EXPECT_NE(short_line.error().message.find("nvme1c1n1/stat: expected 11, 15 or 17 numbers, got 3"),
            std::string::npos);
  auto garbage = ParseBlockStat("1 2 3 4 x 6 7 8 9 10 11\n", "stat");
  ASSERT_FALSE(garbage.ok());
  EXPECT_NE(garbage.error().message.find("field 5 is not a number"), std::string::npos);
}

}  // namespace
}  // namespace fabric
