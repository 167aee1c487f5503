#include "common/strings.h"

#include <gtest/gtest.h>

namespace fabric {
namespace {

TEST(StringsTest, SplitFieldsCollapsesWhitespace) {
  auto f = SplitFields("  a\tb  c \n");
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0], "a");
  EXPECT_EQ(f[2], "c");
  EXPECT_TRUE(SplitFields(" \t ").empty());
}

TEST(StringsTest, SplitLinesIgnoresTrailingNewline) {
  EXPECT_EQ(SplitLines("a\nb\n").size(), 2u);
  EXPECT_EQ(SplitLines("a\n\nb").size(), 3u);
  EXPECT_TRUE(SplitLines("").empty());
}

TEST(StringsTest, NumbersAreStrict) {
  EXPECT_EQ(ParseUint64("42"), 42u);
  EXPECT_EQ(ParseUint64("ff", 16), 255u);
  EXPECT_EQ(ParseUint64("0x1f", 16), 31u);
  EXPECT_EQ(ParseUint64("42 "), std::nullopt);
  EXPECT_EQ(ParseUint64("-1"), std::nullopt);
  EXPECT_EQ(ParseUint64("18446744073709551616"), std::nullopt);
  EXPECT_EQ(ParseInt64("-7"), -7);
  EXPECT_EQ(ParseInt64(""), std::nullopt);
  EXPECT_EQ(ParseDouble("2.5"), 2.5);
  EXPECT_EQ(ParseDouble("2.5x"), std::nullopt);
}

TEST(StringsTest, QuoteEscapesControlBytesAndTruncates) {
  EXPECT_EQ(Quote("a\"b"), "\"a\\\"b\"");
  EXPECT_EQ(Quote("\x01z"), "\"\\x01z\"");
  EXPECT_EQ(Quote("abcdef", 3), "\"abc...\"");
}

}  // namespace
}  // namespace fabric
