#include "common/parse/prom_text_parse.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace fabric {
namespace {

TEST(PromTextParseTest, SamplesWithLabelsEscapesCommentsAndTimestamps) {
  auto r = ParsePromText(
      "# HELP a_total A counter.\n"
      "# TYPE a_total counter\n"
      "\n"
      "a_total 3\n"
      "b{x=\"1\",y=\"q\\\"uo\\\\te\\nd\",} 2.5e3 1700000000000\n"
      "c{ } NaN\n"
      "d:e +Inf\n");
  ASSERT_FALSE(r.error) << r.error->message;
  ASSERT_EQ(r.samples.size(), 4u);
  EXPECT_EQ(r.samples[0].name, "a_total");
  EXPECT_EQ(r.samples[0].value, 3);
  EXPECT_EQ(r.samples[1].Label("y").value(), "q\"uo\\te\nd");
  EXPECT_EQ(r.samples[1].value, 2500);
  EXPECT_EQ(r.samples[1].timestamp_ms.value(), 1700000000000);
  EXPECT_TRUE(std::isnan(r.samples[2].value));
  EXPECT_TRUE(std::isinf(r.samples[3].value));
  EXPECT_FALSE(r.samples[0].Label("x"));
}

TEST(PromTextParseTest, ABrokenLastLineWithoutNewlineIsTruncated) {
  auto r = ParsePromText("a 1\nb{x=\"1\",y=\"2");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->failure, PromTextFailure::kTruncated);
  EXPECT_EQ(r.error->line, 2u);
  EXPECT_TRUE(r.samples.empty());
}

TEST(PromTextParseTest, GarbageIsASyntaxError) {
  for (const char* text :
       {"a 1\nb{x=1} 2\n", "1a 2\n", "a{x=\"1\" y=\"2\"} 3\n", "a nan\n", "a 0x10\n", "a 1 2 3\n",
        "a{x=\"1\",x=\"2\"} 1\n", "a{x=\"\\q\"} 1\n", "a\n", "\x01\x02\n"}) {
    auto r = ParsePromText(text);
    ASSERT_TRUE(r.error) << text;
    EXPECT_EQ(r.error->failure, PromTextFailure::kSyntax) << text;
  }
}

TEST(PromTextParseTest, MoreSamplesThanTheLimitIsAnError) {
  std::string text;
  for (int i = 0; i < 11; ++i) text += "a{i=\"" + std::to_string(i) + "\"} 1\n";
  EXPECT_FALSE(ParsePromText(text, 11).error);
  auto r = ParsePromText(text, 10);
  ASSERT_TRUE(r.error);
  EXPECT_TRUE(r.samples.empty());
}

TEST(PromTextParseTest, EmptyTextHasNoSamples) {
  auto r = ParsePromText("");
  EXPECT_FALSE(r.error);
  EXPECT_TRUE(r.samples.empty());
}

}  // namespace
}  // namespace fabric
