#include "common/parse/schedstat_parse.h"

#include <gtest/gtest.h>

namespace fabric {
namespace {

// A capped rsync's line, read from /proc/PID/task/TID/schedstat on Linux 6.18.
TEST(ParseSchedstatTest, ThreeFields) {
  auto stat = ParseSchedstat("3530673 397152 3\n");
  ASSERT_TRUE(stat.ok()) << stat.error().message;
  EXPECT_EQ(stat->on_cpu_ns, 3530673u);
  EXPECT_EQ(stat->run_delay_ns, 397152u);
  EXPECT_EQ(stat->timeslices, 3u);
}

TEST(ParseSchedstatTest, ErrorsNameTheField) {
  EXPECT_NE(ParseSchedstat("").error().message.find("expected 3 fields, got 0"), std::string::npos);
  EXPECT_NE(ParseSchedstat("1 2").error().message.find("got 2"), std::string::npos);
  EXPECT_NE(ParseSchedstat("1 2 3 4").error().message.find("got 4"), std::string::npos);
  EXPECT_NE(ParseSchedstat("1 x 3").error().message.find("run delay"), std::string::npos);
  EXPECT_NE(ParseSchedstat("-1 2 3").error().message.find("on-CPU time"), std::string::npos);
}

}  // namespace
}  // namespace fabric
