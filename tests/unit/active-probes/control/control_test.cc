// The control channel: message framing, allow-lists, authentication.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/stat.h>

#include <cstring>

#include "active-probes/control/auth.h"
#include "active-probes/control/cidr.h"
#include "active-probes/control/conn.h"
#include "active-probes/control/message.h"
#include "tests/unit/test_dir.h"

namespace fabric::probe {
namespace {

sockaddr_storage V4(const char* text) {
  sockaddr_storage ss{};
  auto* in = reinterpret_cast<sockaddr_in*>(&ss);
  in->sin_family = AF_INET;
  inet_pton(AF_INET, text, &in->sin_addr);
  return ss;
}

sockaddr_storage V6(const char* text) {
  sockaddr_storage ss{};
  auto* in6 = reinterpret_cast<sockaddr_in6*>(&ss);
  in6->sin6_family = AF_INET6;
  inet_pton(AF_INET6, text, &in6->sin6_addr);
  return ss;
}

TEST(MessageTest, RoundTrips) {
  Message m;
  m.verb = "TEST";
  m.Set("up", 8).Set("mode", "sendfile");
  std::string line = FormatMessage(m);
  EXPECT_EQ(line, "TEST mode=sendfile up=8\n");
  auto back = ParseMessage(line.substr(0, line.size() - 1));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->verb, "TEST");
  EXPECT_EQ(back->Uint("up").value_or(0), 8u);
  EXPECT_EQ(back->Get("mode"), "sendfile");
}

TEST(MessageTest, RejectsMalformed) {
  EXPECT_FALSE(ParseMessage("").ok());
  EXPECT_FALSE(ParseMessage("TEST up").ok());
  EXPECT_FALSE(ParseMessage("TEST =5").ok());
  EXPECT_FALSE(ParseMessage("TEST up=1 up=2").ok());
  EXPECT_FALSE(ParseMessage(std::string("TEST a=\x01", 8)).ok());
  EXPECT_FALSE(ParseMessage(std::string(kMaxLineBytes + 1, 'A')).ok());
  auto m = ParseMessage("TEST up=x");
  ASSERT_TRUE(m.ok());
  EXPECT_FALSE(m->Uint("up").ok());
  EXPECT_FALSE(m->Uint("down").ok());
}

TEST(CidrTest, MatchesV4V6AndMapped) {
  auto list = ParseCidrList("198.18.5.2/32, 10.0.0.0/8,2001:db8::/32");
  ASSERT_TRUE(list.ok()) << list.error().message;
  EXPECT_TRUE(AllowListContains(*list, V4("198.18.5.2")));
  EXPECT_FALSE(AllowListContains(*list, V4("198.18.5.3")));
  EXPECT_TRUE(AllowListContains(*list, V4("10.200.1.1")));
  EXPECT_TRUE(AllowListContains(*list, V6("::ffff:10.1.2.3")));
  EXPECT_TRUE(AllowListContains(*list, V6("2001:db8:ff::1")));
  EXPECT_FALSE(AllowListContains(*list, V6("2001:db9::1")));
  auto odd = ParseCidr("192.168.0.0/23");
  ASSERT_TRUE(odd.ok());
  EXPECT_TRUE(CidrContains(*odd, V4("192.168.1.255")));
  EXPECT_FALSE(CidrContains(*odd, V4("192.168.2.0")));
}

TEST(CidrTest, RejectsGarbage) {
  EXPECT_FALSE(ParseCidrList("").ok());
  EXPECT_FALSE(ParseCidr("10.0.0.0/33").ok());
  EXPECT_FALSE(ParseCidr("example.com").ok());
  EXPECT_FALSE(ParseCidr("10.0.0.0/x").ok());
}

TEST(AuthTest, MacDependsOnEveryInput) {
  std::string a = ComputeMac("0123456789abcdef", "client", "n1", "n2");
  EXPECT_EQ(a.size(), 64u);
  EXPECT_TRUE(MacEqual(a, ComputeMac("0123456789abcdef", "client", "n1", "n2")));
  EXPECT_FALSE(MacEqual(a, ComputeMac("0123456789abcdeX", "client", "n1", "n2")));
  EXPECT_FALSE(MacEqual(a, ComputeMac("0123456789abcdef", "server", "n1", "n2")));
  EXPECT_FALSE(MacEqual(a, ComputeMac("0123456789abcdef", "client", "n2", "n1")));
  EXPECT_FALSE(MacEqual("", ""));
  EXPECT_NE(MakeNonce(), MakeNonce());
  EXPECT_EQ(MakeNonce().size(), 32u);
}

TEST(AuthTest, SecretFileRules) {
  testing::TestDir dir;
  std::string good = dir.Write("good", "a-long-enough-secret\n");
  chmod(good.c_str(), 0600);
  auto s = LoadSecretFile(good);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(*s, "a-long-enough-secret");
  std::string world = dir.Write("world", "a-long-enough-secret\n");
  chmod(world.c_str(), 0644);
  EXPECT_FALSE(LoadSecretFile(world).ok());
  std::string shorty = dir.Write("short", "short\n");
  chmod(shorty.c_str(), 0600);
  EXPECT_FALSE(LoadSecretFile(shorty).ok());
  EXPECT_FALSE(LoadSecretFile(dir.path().string() + "/missing").ok());
}

TEST(HostPortTest, Forms) {
  auto a = ParseHostPort("10.0.0.1", 9878);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "10.0.0.1");
  EXPECT_EQ(a->port, 9878);
  auto b = ParseHostPort("host:1234", 9878);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->port, 1234);
  auto c = ParseHostPort("[2001:db8::1]:99", 9878);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->host, "2001:db8::1");
  EXPECT_EQ(c->port, 99);
  auto d = ParseHostPort("2001:db8::1", 9878);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->port, 9878);
  EXPECT_FALSE(ParseHostPort("host:0", 1).ok());
  EXPECT_FALSE(ParseHostPort("host:70000", 1).ok());
  EXPECT_FALSE(ParseHostPort("[::1", 1).ok());
}

}  // namespace
}  // namespace fabric::probe
