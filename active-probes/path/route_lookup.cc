#include "active-probes/path/route_lookup.h"

#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/kernel/netlink_socket.h"
#include "common/parse/route_parse.h"
#include "common/unique_fd.h"

namespace fabric {
namespace {

int InterfaceMtu(const std::string& name) {
  UniqueFd fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  ifreq request{};
  std::strncpy(request.ifr_name, name.c_str(), IFNAMSIZ - 1);
  if (!fd.valid() || ::ioctl(fd.get(), SIOCGIFMTU, &request) != 0) return 0;
  return request.ifr_mtu;
}

std::string ErrnoText(int64_t err) {
  return err > 0 && err < 4096 ? std::strerror(static_cast<int>(err))
                               : "code " + std::to_string(-err);
}

}  // namespace

Result<RouteInfo> LookupRoute(const std::string& address) {
  // Every failure to learn the route, the kernel's answer or the netlink
  // exchange, is the path probe's no_route.
  auto no_route = [](std::string message) {
    return MakeError(ErrorCode::kNoRoute, std::move(message));
  };
  unsigned char destination[16];
  int family = AF_INET;
  size_t address_length = 4;
  if (inet_pton(AF_INET, address.c_str(), destination) != 1) {
    if (inet_pton(AF_INET6, address.c_str(), destination) != 1) {
      return no_route("\"" + address + "\" is not a numeric address");
    }
    family = AF_INET6;
    address_length = 16;
  }
  auto socket = NetlinkSocket::Open(NETLINK_ROUTE);
  if (!socket.ok()) return no_route(socket.error().message);
  socket->SetReceiveTimeout(std::chrono::seconds(2));

  struct {
    nlmsghdr header;
    rtmsg route;
    char attributes[64];
  } request{};
  request.header.nlmsg_len = NLMSG_LENGTH(sizeof(rtmsg));
  request.header.nlmsg_type = RTM_GETROUTE;
  request.header.nlmsg_flags = NLM_F_REQUEST;
  request.header.nlmsg_seq = 1;
  request.route.rtm_family = static_cast<unsigned char>(family);
  request.route.rtm_dst_len = static_cast<unsigned char>(address_length * 8);
  auto* attribute = reinterpret_cast<rtattr*>(reinterpret_cast<char*>(&request.header) +
                                              NLMSG_ALIGN(request.header.nlmsg_len));
  attribute->rta_type = RTA_DST;
  attribute->rta_len = static_cast<unsigned short>(RTA_LENGTH(address_length));
  std::memcpy(RTA_DATA(attribute), destination, address_length);
  request.header.nlmsg_len = NLMSG_ALIGN(request.header.nlmsg_len) + RTA_ALIGN(attribute->rta_len);

  auto reply = socket->Request(&request, request.header.nlmsg_len);
  if (!reply.ok()) return no_route(reply.error().message);
  const RouteReply route = ParseRouteReply(*reply);
  switch (route.kind) {
    case RouteReply::Kind::kError:
      return no_route("no route to " + address + ": " + ErrnoText(route.error));
    case RouteReply::Kind::kNone:
      return no_route("no route reply for " + address);
    case RouteReply::Kind::kRoute:
      break;
  }
  RouteInfo info;
  char name[IF_NAMESIZE] = {};
  if (route.oif != 0 && if_indextoname(route.oif, name)) info.interface = name;
  info.source_address = route.prefsrc;
  info.gateway = route.gateway;
  info.mtu = static_cast<int>(route.mtu);
  if (info.interface.empty()) return no_route("route to " + address + " has no interface");
  if (info.mtu == 0) info.mtu = InterfaceMtu(info.interface);
  return info;
}

}  // namespace fabric
