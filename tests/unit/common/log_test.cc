#include "common/log.h"

#include <gtest/gtest.h>

namespace fabric::log {
namespace {

TEST(LogTest, Logfmt) {
  EXPECT_EQ(FormatRecord(Format::kLogfmt, "T", Level::kWarn, "collector failed",
                         {{"collector", "softnet"}, {"err", "line 3: bad \"x\""}}),
            "ts=T level=warn msg=\"collector failed\" collector=softnet "
            "err=\"line 3: bad \\\"x\\\"\"\n");
}

TEST(LogTest, Json) {
  EXPECT_EQ(FormatRecord(Format::kJson, "T", Level::kInfo, "hi\n", {{"k", "v"}}),
            "{\"ts\":\"T\",\"level\":\"info\",\"msg\":\"hi\\n\",\"k\":\"v\"}\n");
}

TEST(LogTest, ParseNames) {
  EXPECT_EQ(ParseLevel("debug"), Level::kDebug);
  EXPECT_EQ(ParseLevel("loud"), std::nullopt);
  EXPECT_EQ(ParseFormat("json"), Format::kJson);
  EXPECT_EQ(ParseFormat("xml"), std::nullopt);
}

}  // namespace
}  // namespace fabric::log
