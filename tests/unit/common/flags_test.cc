#include "common/flags.h"

#include <gtest/gtest.h>

namespace fabric {
namespace {

FlagSet MakeFlags() {
  FlagSet flags;
  flags.AddString("web.listen-address", "ADDR", "where to listen", "127.0.0.1:9877");
  flags.AddBool("collector.softnet", "softnet", true);
  flags.AddBool("verbose", "talk more", false);
  return flags;
}

TEST(FlagsTest, DefaultsAndExplicitValues) {
  FlagSet flags = MakeFlags();
  const char* argv[] = {"prog", "--web.listen-address", ":1", "--verbose"};
  ASSERT_TRUE(flags.Parse(4, argv).ok());
  EXPECT_EQ(flags.GetString("web.listen-address"), ":1");
  EXPECT_TRUE(flags.IsSet("web.listen-address"));
  EXPECT_TRUE(flags.GetBool("verbose"));
  EXPECT_TRUE(flags.GetBool("collector.softnet"));
  EXPECT_FALSE(flags.IsSet("collector.softnet"));
}

TEST(FlagsTest, EqualsFormAndNegation) {
  FlagSet flags = MakeFlags();
  const char* argv[] = {"prog", "--web.listen-address=:2", "--no-collector.softnet", "pos"};
  ASSERT_TRUE(flags.Parse(4, argv).ok());
  EXPECT_EQ(flags.GetString("web.listen-address"), ":2");
  EXPECT_FALSE(flags.GetBool("collector.softnet"));
  EXPECT_TRUE(flags.IsSet("collector.softnet"));
  EXPECT_EQ(flags.positional(), std::vector<std::string>{"pos"});
}

TEST(FlagsTest, ErrorsSayWhatIsWrong) {
  FlagSet a = MakeFlags();
  const char* unknown[] = {"prog", "--colector.softnet"};
  auto r = a.Parse(2, unknown);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "unknown flag --colector.softnet (see --help for the list)");
  FlagSet b = MakeFlags();
  const char* missing[] = {"prog", "--web.listen-address"};
  r = b.Parse(2, missing);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "flag --web.listen-address needs a value (ADDR)");
  FlagSet c = MakeFlags();
  const char* bad_bool[] = {"prog", "--verbose=maybe"};
  EXPECT_FALSE(c.Parse(2, bad_bool).ok());
}

TEST(FlagsTest, UsageListsEveryFlagWithDefault) {
  std::string usage = MakeFlags().Usage();
  EXPECT_NE(usage.find("--web.listen-address=ADDR"), std::string::npos);
  EXPECT_NE(usage.find("(default: 127.0.0.1:9877)"), std::string::npos);
  EXPECT_NE(usage.find("--[no-]collector.softnet"), std::string::npos);
}

}  // namespace
}  // namespace fabric
