#include "common/parse/cpu_list_parse.h"

#include <gtest/gtest.h>

namespace fabric {
namespace {

TEST(CpuListParseTest, Lists) {
  struct Case {
    const char* text;
    std::vector<int> cpus;
  };
  for (const Case& c : {Case{"0-3,8,10-11\n", {0, 1, 2, 3, 8, 10, 11}}, Case{"5", {5}},
                        Case{"", {}}, Case{"\n", {}}, Case{"7-7", {7}}}) {
    auto r = ParseCpuList(c.text);
    ASSERT_TRUE(r.ok()) << c.text;
    EXPECT_EQ(*r, c.cpus) << c.text;
  }
  for (const char* bad : {"3-1", "a", "1,,2", "0-70000", "-1", "1-"}) {
    EXPECT_FALSE(ParseCpuList(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace fabric
