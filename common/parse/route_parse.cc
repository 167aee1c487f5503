#include "common/parse/route_parse.h"

#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cstring>

namespace fabric {
namespace {

template <typename T>
T Load(const char* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

// Calls `visit(type, payload)` for each rtattr of `attributes`; stops at the
// first one whose length does not fit.
template <typename Visit>
void WalkAttributes(std::string_view attributes, Visit visit) {
  size_t offset = 0;
  while (offset + sizeof(rtattr) <= attributes.size()) {
    auto a = Load<rtattr>(attributes.data() + offset);
    if (a.rta_len < sizeof(rtattr) || offset + a.rta_len > attributes.size()) return;
    visit(a.rta_type, attributes.substr(offset + RTA_LENGTH(0), a.rta_len - RTA_LENGTH(0)));
    offset += RTA_ALIGN(a.rta_len);
  }
}

std::string AddressText(int family, std::string_view payload) {
  const size_t want = family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
  if (want == 0 || payload.size() != want) return "";
  unsigned char bytes[16];
  std::memcpy(bytes, payload.data(), want);
  char buf[INET6_ADDRSTRLEN] = {};
  return inet_ntop(family, bytes, buf, sizeof buf) ? buf : "";
}

RouteReply ParseRoute(std::string_view payload) {
  RouteReply reply;
  reply.kind = RouteReply::Kind::kRoute;
  if (payload.size() < NLMSG_ALIGN(sizeof(rtmsg))) return reply;
  const auto route = Load<rtmsg>(payload.data());
  WalkAttributes(payload.substr(NLMSG_ALIGN(sizeof(rtmsg))),
                 [&](uint16_t type, std::string_view data) {
                   switch (type) {
                     case RTA_OIF:
                       if (data.size() >= sizeof(uint32_t)) reply.oif = Load<uint32_t>(data.data());
                       break;
                     case RTA_PREFSRC:
                       reply.prefsrc = AddressText(route.rtm_family, data);
                       break;
                     case RTA_GATEWAY:
                       reply.gateway = AddressText(route.rtm_family, data);
                       break;
                     case RTA_METRICS:
                       WalkAttributes(data, [&](uint16_t metric, std::string_view value) {
                         if (metric == RTAX_MTU && value.size() >= sizeof(uint32_t)) {
                           reply.mtu = Load<uint32_t>(value.data());
                         }
                       });
                       break;
                     default:
                       break;
                   }
                 });
  return reply;
}

}  // namespace

RouteReply ParseRouteReply(std::string_view buffer) {
  size_t offset = 0;
  while (offset + sizeof(nlmsghdr) <= buffer.size()) {
    const auto header = Load<nlmsghdr>(buffer.data() + offset);
    if (header.nlmsg_len < NLMSG_HDRLEN || offset + header.nlmsg_len > buffer.size()) break;
    std::string_view payload =
        buffer.substr(offset + NLMSG_HDRLEN, header.nlmsg_len - NLMSG_HDRLEN);
    if (header.nlmsg_type == NLMSG_ERROR) {
      RouteReply reply;
      reply.kind = RouteReply::Kind::kError;
      if (payload.size() >= sizeof(int)) reply.error = -int64_t{Load<int>(payload.data())};
      return reply;
    }
    if (header.nlmsg_type == RTM_NEWROUTE) return ParseRoute(payload);
    offset += NLMSG_ALIGN(header.nlmsg_len);
  }
  return RouteReply{};
}

}  // namespace fabric
