// The netlink client against this machine's kernel: a route request for the
// loopback address (always routed through lo) and a link dump (always
// listing lo), parsed by the same parsers the route check and the flows
// backend use.
#include "common/kernel/netlink_socket.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>

#include <cstring>
#include <map>

#include "common/parse/netlink_parse.h"
#include "common/parse/route_parse.h"

namespace fabric {
namespace {

TEST(NetlinkSocketTest, RouteRequestForLoopback) {
  auto socket = NetlinkSocket::Open(NETLINK_ROUTE);
  ASSERT_TRUE(socket.ok()) << socket.error().message;
  socket->SetReceiveTimeout(std::chrono::seconds(2));
  struct {
    nlmsghdr header;
    rtmsg route;
    rtattr dst;
    in_addr address;
  } request{};
  request.header.nlmsg_len = sizeof(request);
  request.header.nlmsg_type = RTM_GETROUTE;
  request.header.nlmsg_flags = NLM_F_REQUEST;
  request.route.rtm_family = AF_INET;
  request.route.rtm_dst_len = 32;
  request.dst.rta_type = RTA_DST;
  request.dst.rta_len = RTA_LENGTH(sizeof(in_addr));
  ASSERT_EQ(inet_pton(AF_INET, "127.0.0.1", &request.address), 1);
  auto reply = socket->Request(&request, sizeof(request));
  ASSERT_TRUE(reply.ok()) << reply.error().message;
  RouteReply route = ParseRouteReply(*reply);
  ASSERT_EQ(route.kind, RouteReply::Kind::kRoute);
  EXPECT_EQ(route.oif, if_nametoindex("lo"));
  EXPECT_EQ(route.prefsrc, "127.0.0.1");
}

TEST(NetlinkSocketTest, LinkDumpEndsAndListsLoopback) {
  auto socket = NetlinkSocket::Open(NETLINK_ROUTE);
  ASSERT_TRUE(socket.ok()) << socket.error().message;
  struct {
    nlmsghdr header;
    ifinfomsg request;
  } message{};
  message.header.nlmsg_len = sizeof(message);
  message.header.nlmsg_type = RTM_GETLINK;
  message.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  std::map<uint32_t, std::string> names;
  int buffers = 0;
  Status dumped = socket->Dump(
      &message, sizeof(message),
      [&](std::string_view buffer, bool& done) {
        ++buffers;
        return ParseLinkBuffer(buffer, names, done);
      },
      1 << 20);
  ASSERT_TRUE(dumped.ok()) << dumped.error().message;
  EXPECT_GE(buffers, 1);
  EXPECT_EQ(names[if_nametoindex("lo")], "lo");
}

TEST(NetlinkSocketTest, ADumpOverItsLimitFails) {
  auto socket = NetlinkSocket::Open(NETLINK_ROUTE);
  ASSERT_TRUE(socket.ok());
  struct {
    nlmsghdr header;
    ifinfomsg request;
  } message{};
  message.header.nlmsg_len = sizeof(message);
  message.header.nlmsg_type = RTM_GETLINK;
  message.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  std::map<uint32_t, std::string> names;
  Status dumped = socket->Dump(
      &message, sizeof(message),
      [&](std::string_view buffer, bool& done) { return ParseLinkBuffer(buffer, names, done); },
      16);
  ASSERT_FALSE(dumped.ok());
  EXPECT_EQ(dumped.error().message, "netlink dump larger than 16 bytes");
}

TEST(NetlinkSocketTest, AProtocolTheKernelLacksIsAbsent) {
  // Protocol numbers past MAX_LINKS (32) are no netlink family at all.
  auto socket = NetlinkSocket::Open(31);
  if (socket.ok()) GTEST_SKIP() << "this kernel has netlink protocol 31";
  EXPECT_TRUE(socket.absent()) << socket.error().message;
}

}  // namespace
}  // namespace fabric
