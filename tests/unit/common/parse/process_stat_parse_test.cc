#include "common/parse/process_stat_parse.h"

#include <gtest/gtest.h>

namespace fabric {
namespace {

// A real /proc/PID/stat line (Linux 6.1, fabric_exporter), command name with a
// space and a ')' inside to check the fields are counted from the last ')'.
constexpr char kStat[] =
    "4242 (fabric ex)porter) S 1 4242 4242 0 -1 4194560 2719 0 0 0 37 12 0 0 20 0 9 0 "
    "123456 567894016 3072 18446744073709551615 1 1 0 0 0 0 0 4096 17991 0 0 0 17 1 0 0 0 0 0 "
    "0 0 0 0 0 0 0 0\n";

TEST(ProcessStatParseTest, FieldsCountedFromTheLastParenthesis) {
  auto r = ParseProcessStat(kStat);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->user_ticks, 37u);
  EXPECT_EQ(r->system_ticks, 12u);
  EXPECT_EQ(r->start_ticks, 123456u);
  EXPECT_EQ(r->virtual_bytes, 567894016u);
  EXPECT_EQ(r->resident_pages, 3072u);
}

TEST(ProcessStatParseTest, RejectsBrokenStat) {
  struct Case {
    const char* text;
    const char* error;
  };
  for (const Case& c : {Case{"4242 fabric S 1", "stat: no ')' after the command name"},
                        Case{"4242 (x) S 1 2 3", "stat: field 14 missing"},
                        Case{"4242 (x) S 1 2 3 4 5 6 7 8 9 10 x 12 0 0 20 0 9 0 1 2 3",
                             "stat: field 14 not a number"}}) {
    auto r = ParseProcessStat(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.error().message, c.error);
  }
}

TEST(ProcessStatParseTest, BootTime) {
  auto r = ParseBootTime("cpu  1 2 3 4 5 6 7 8\nintr 1\nctxt 99\nbtime 1765065600\nprocesses 7\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r, 1765065600u);
  EXPECT_EQ(ParseBootTime("cpu 1 2 3 4 5 6 7 8\n").error().message, "stat: no btime line");
  EXPECT_EQ(ParseBootTime("cpu 1 2 3 4 5 6 7 8\nbtime x\n").error().message, "stat:2: bad btime");
}

TEST(ProcessStatParseTest, MaxOpenFiles) {
  // The layout of /proc/PID/limits (fs/proc/base.c proc_pid_limits).
  constexpr char kLimits[] =
      "Limit                     Soft Limit           Hard Limit           Units     \n"
      "Max cpu time              unlimited            unlimited            seconds   \n"
      "Max open files            1048576              1048576              files     \n"
      "Max locked memory         8388608              8388608              bytes     \n";
  auto r = ParseMaxOpenFiles(kLimits);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->value(), 1048576u);
  auto unlimited = ParseMaxOpenFiles("Max open files            unlimited   unlimited  files\n");
  ASSERT_TRUE(unlimited.ok());
  EXPECT_FALSE(unlimited->has_value());
  EXPECT_EQ(ParseMaxOpenFiles("Max cpu time unlimited unlimited seconds\n").error().message,
            "limits: no \"Max open files\" row");
  EXPECT_EQ(ParseMaxOpenFiles("Max open files  many  1024 files\n").error().message,
            "limits:1: bad soft limit");
}

}  // namespace
}  // namespace fabric
