#include "common/parse/ip_address.h"

#include <gtest/gtest.h>

namespace fabric {
namespace {

TEST(IpAddressTest, ParsesAndFormatsBothFamilies) {
  auto v4 = ParseIpAddress("198.18.9.1");
  ASSERT_TRUE(v4.ok());
  EXPECT_FALSE(v4->v6);
  EXPECT_EQ(v4->ToString(), "198.18.9.1");
  auto v6 = ParseIpAddress("2001:db8::1");
  ASSERT_TRUE(v6.ok());
  EXPECT_TRUE(v6->v6);
  EXPECT_EQ(v6->ToString(), "2001:db8::1");
}

TEST(IpAddressTest, MappedV6BecomesV4) {
  auto mapped = ParseIpAddress("::ffff:198.18.9.2");
  ASSERT_TRUE(mapped.ok());
  EXPECT_FALSE(mapped->v6);
  EXPECT_EQ(*mapped, *ParseIpAddress("198.18.9.2"));
}

TEST(IpAddressTest, Loopback) {
  EXPECT_TRUE(ParseIpAddress("127.3.0.1")->IsLoopback());
  EXPECT_TRUE(ParseIpAddress("::1")->IsLoopback());
  EXPECT_FALSE(ParseIpAddress("::2")->IsLoopback());
  EXPECT_FALSE(ParseIpAddress("10.0.0.1")->IsLoopback());
}

TEST(IpPrefixTest, Contains) {
  auto p = ParseIpPrefix("198.18.9.0/24");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->Contains(*ParseIpAddress("198.18.9.77")));
  EXPECT_FALSE(p->Contains(*ParseIpAddress("198.18.10.1")));
  EXPECT_FALSE(p->Contains(*ParseIpAddress("::ffff:c612:a01")));  // 198.18.10.1
  auto odd = ParseIpPrefix("10.0.0.0/13");
  EXPECT_TRUE(odd->Contains(*ParseIpAddress("10.7.255.255")));
  EXPECT_FALSE(odd->Contains(*ParseIpAddress("10.8.0.0")));
  auto v6 = ParseIpPrefix("fd00::/8");
  EXPECT_TRUE(v6->Contains(*ParseIpAddress("fd12::1")));
  EXPECT_FALSE(v6->Contains(*ParseIpAddress("10.0.0.1")));
  EXPECT_TRUE(ParseIpPrefix("0.0.0.0/0")->Contains(*ParseIpAddress("8.8.8.8")));
  EXPECT_EQ(ParseIpPrefix("10.1.2.3")->length, 32);
}

TEST(IpPrefixTest, RejectsGarbage) {
  EXPECT_FALSE(ParseIpPrefix("10.0.0.0/33").ok());
  EXPECT_FALSE(ParseIpPrefix("10.0.0/8").ok());
  EXPECT_FALSE(ParseIpPrefix("fd00::/129").ok());
  EXPECT_FALSE(ParseIpPrefix("10.0.0.0/x").ok());
  EXPECT_FALSE(ParseIpPrefix("").ok());
}

}  // namespace
}  // namespace fabric
