#include "common/parse/proc_stat_parse.h"

#include <gtest/gtest.h>

namespace fabric {
namespace {

TEST(ProcStatParseTest, AggregateAndPerCpuLines) {
  auto r = ParseProcStat(
      "cpu  100 1 100 800 2 3 4 5 0 0\ncpu0 50 0 50 400 0 0 0 0\ncpu12 50 1 50 400 2 3 4 5\n"
      "intr 1 2 3\nctxt 99\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].cpu, -1);
  EXPECT_EQ((*r)[0].Total(), 100u + 1 + 100 + 800 + 2 + 3 + 4 + 5);
  EXPECT_EQ((*r)[0].Busy(), (*r)[0].Total() - 800 - 2);
  EXPECT_EQ((*r)[2].cpu, 12);
  EXPECT_EQ((*r)[2].steal, 5u);
}

TEST(ProcStatParseTest, OldKernelsWithoutSteal) {
  // 2.6.10 and older print seven columns: steal stays 0.
  auto r = ParseProcStat("cpu 1 2 3 4 5 6 7\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)[0].softirq, 7u);
  EXPECT_EQ((*r)[0].steal, 0u);
}

TEST(ProcStatParseTest, Rejects) {
  struct Case {
    const char* text;
    const char* error;
  };
  for (const Case& c :
       {Case{"intr 1\n", "stat: no cpu lines"}, Case{"cpu 1 2 x 4 5 6 7 8\n", "stat:1: bad number"},
        Case{"cpu 1 2\n", "stat:1: too few columns"},
        Case{"intr 1\ncpuX 1 2 3 4 5 6 7\n", "stat:2: bad cpu id"}}) {
    auto r = ParseProcStat(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.error().message, c.error);
  }
}

}  // namespace
}  // namespace fabric
