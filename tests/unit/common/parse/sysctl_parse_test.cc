#include "common/parse/sysctl_parse.h"

#include <gtest/gtest.h>

namespace fabric {
namespace {

TEST(SysctlParseTest, Integer) {
  auto v = ParseSysctlInt("212992\n", "rmem_max");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 212992);
}

TEST(SysctlParseTest, TabSeparatedTriple) {
  auto v = ParseSysctlInts("4096\t131072\t33554432\n", 3, "tcp_rmem");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, (std::vector<int64_t>{4096, 131072, 33554432}));
}

TEST(SysctlParseTest, Word) {
  auto v = ParseSysctlWord("bbr\n", "tcp_congestion_control");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, "bbr");
}

TEST(SysctlParseTest, BrokenValuesNameTheSourceAndValue) {
  auto not_int = ParseSysctlInt("lots", "/proc/sys/net/core/rmem_max");
  ASSERT_FALSE(not_int.ok());
  EXPECT_EQ(not_int.error().message, "/proc/sys/net/core/rmem_max: not an integer: \"lots\"");
  auto bad_field = ParseSysctlInt("12k", "rmem_max");
  ASSERT_FALSE(bad_field.ok());
  EXPECT_NE(bad_field.error().message.find("not an integer: \"12k\""), std::string::npos);
  EXPECT_FALSE(ParseSysctlInts("4096 131072", 3, "tcp_rmem").ok());
  EXPECT_FALSE(ParseSysctlInts("", 3, "tcp_rmem").ok());
  EXPECT_FALSE(ParseSysctlWord("two words", "qdisc").ok());
  EXPECT_FALSE(ParseSysctlWord("", "qdisc").ok());
}

}  // namespace
}  // namespace fabric
