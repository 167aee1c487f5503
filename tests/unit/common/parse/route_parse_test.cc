// RTM_GETROUTE answers as the kernel frames them, built byte by byte: routes
// of both families, errors, and replies cut or padded wrongly.
#include "common/parse/route_parse.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cstring>
#include <string>
#include <vector>

namespace fabric {
namespace {

std::string Bytes(const void* p, size_t n) { return std::string(static_cast<const char*>(p), n); }

std::string Pad(std::string s) {
  s.resize((s.size() + 3) & ~size_t{3}, '\0');
  return s;
}

std::string Attr(uint16_t type, const std::string& payload) {
  rtattr a{};
  a.rta_len = static_cast<unsigned short>(RTA_LENGTH(payload.size()));
  a.rta_type = type;
  return Pad(Bytes(&a, sizeof a) + payload);
}

std::string U32(uint32_t v) { return Bytes(&v, sizeof v); }

std::string Addr(int family, const char* text) {
  unsigned char buf[16];
  EXPECT_EQ(inet_pton(family, text, buf), 1);
  return Bytes(buf, family == AF_INET ? 4 : 16);
}

std::string Message(uint16_t type, const std::string& payload) {
  nlmsghdr h{};
  h.nlmsg_len = static_cast<uint32_t>(NLMSG_LENGTH(payload.size()));
  h.nlmsg_type = type;
  return Pad(Bytes(&h, sizeof h) + payload);
}

std::string Route(int family, const std::string& attributes) {
  rtmsg r{};
  r.rtm_family = static_cast<unsigned char>(family);
  r.rtm_dst_len = family == AF_INET ? 32 : 128;
  r.rtm_table = RT_TABLE_MAIN;
  return Message(RTM_NEWROUTE, Bytes(&r, sizeof r) + attributes);
}

std::string Error(int negative_errno) {
  nlmsgerr e{};
  e.error = negative_errno;
  return Message(NLMSG_ERROR, Bytes(&e, sizeof e));
}

struct Case {
  const char* name;
  std::string buffer;
  RouteReply::Kind kind;
  int64_t error = 0;
  uint32_t oif = 0;
  const char* prefsrc = "";
  const char* gateway = "";
  uint32_t mtu = 0;
};

std::vector<Case> Cases() {
  const std::string v4 = Attr(RTA_OIF, U32(3)) + Attr(RTA_PREFSRC, Addr(AF_INET, "10.0.0.1")) +
                         Attr(RTA_GATEWAY, Addr(AF_INET, "10.0.0.254")) +
                         Attr(RTA_METRICS, Attr(RTAX_MTU, U32(9000)));
  const std::string v6 = Attr(RTA_OIF, U32(7)) + Attr(RTA_PREFSRC, Addr(AF_INET6, "fd00::1"));
  std::string cut = Route(AF_INET, v4);
  cut.resize(cut.size() - 6);
  std::string bad_len = Route(AF_INET, Attr(RTA_OIF, U32(3)));
  bad_len[NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(rtmsg))] = 99;  // rta_len past the end
  return {
      {"ipv4 route with gateway and mtu", Route(AF_INET, v4), RouteReply::Kind::kRoute, 0, 3,
       "10.0.0.1", "10.0.0.254", 9000},
      {"ipv6 route, no metrics", Route(AF_INET6, v6), RouteReply::Kind::kRoute, 0, 7, "fd00::1"},
      {"no route: ENETUNREACH", Error(-ENETUNREACH), RouteReply::Kind::kError, ENETUNREACH},
      {"error code INT_MIN does not overflow", Error(INT32_MIN), RouteReply::Kind::kError,
       -int64_t{INT32_MIN}},
      {"other messages before the route are skipped",
       Message(RTM_NEWLINK, std::string(16, '\0')) + Route(AF_INET, v4), RouteReply::Kind::kRoute,
       0, 3, "10.0.0.1", "10.0.0.254", 9000},
      {"the first of error and route decides", Error(-EHOSTUNREACH) + Route(AF_INET, v4),
       RouteReply::Kind::kError, EHOSTUNREACH},
      {"an address of the other family's size is ignored",
       Route(AF_INET, Attr(RTA_OIF, U32(2)) + Attr(RTA_PREFSRC, Addr(AF_INET6, "fd00::1"))),
       RouteReply::Kind::kRoute, 0, 2},
      {"a short RTA_OIF is ignored", Route(AF_INET, Attr(RTA_OIF, "\x01\x02")),
       RouteReply::Kind::kRoute},
      {"a message cut short is no answer", cut, RouteReply::Kind::kNone},
      {"an attribute longer than its message ends the walk", bad_len, RouteReply::Kind::kRoute},
      {"an rtmsg cut short is a route without fields", Message(RTM_NEWROUTE, std::string(4, '\0')),
       RouteReply::Kind::kRoute},
      {"empty buffer", "", RouteReply::Kind::kNone},
      {"a header alone", std::string(8, '\0'), RouteReply::Kind::kNone},
  };
}

TEST(RouteParseTest, Table) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    RouteReply r = ParseRouteReply(c.buffer);
    EXPECT_EQ(r.kind, c.kind);
    EXPECT_EQ(r.error, c.error);
    EXPECT_EQ(r.oif, c.oif);
    EXPECT_EQ(r.prefsrc, c.prefsrc);
    EXPECT_EQ(r.gateway, c.gateway);
    EXPECT_EQ(r.mtu, c.mtu);
  }
}

}  // namespace
}  // namespace fabric
