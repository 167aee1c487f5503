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

#include "common/unique_fd.h"

namespace fabric {
namespace {

std::string AddressText(int family, const void* data) {
  char buf[INET6_ADDRSTRLEN] = {};
  return inet_ntop(family, data, buf, sizeof buf) ? buf : "";
}

int InterfaceMtu(const std::string& name) {
  UniqueFd fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  ifreq request{};
  std::strncpy(request.ifr_name, name.c_str(), IFNAMSIZ - 1);
  if (!fd.valid() || ::ioctl(fd.get(), SIOCGIFMTU, &request) != 0) return 0;
  return request.ifr_mtu;
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
  UniqueFd fd(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE));
  if (!fd.valid()) return no_route(std::string("netlink socket: ") + std::strerror(errno));
  timeval timeout{2, 0};
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);

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

  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (::sendto(fd.get(), &request, request.header.nlmsg_len, 0,
               reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) < 0) {
    return no_route(std::string("netlink send: ") + std::strerror(errno));
  }
  alignas(nlmsghdr) char reply[8192];
  ssize_t n = ::recv(fd.get(), reply, sizeof reply, 0);
  if (n < 0) return no_route(std::string("netlink receive: ") + std::strerror(errno));
  for (auto* header = reinterpret_cast<nlmsghdr*>(reply); NLMSG_OK(header, n);
       header = NLMSG_NEXT(header, n)) {
    if (header->nlmsg_type == NLMSG_ERROR) {
      int err = -reinterpret_cast<nlmsgerr*>(NLMSG_DATA(header))->error;
      return no_route("no route to " + address + ": " + std::strerror(err));
    }
    if (header->nlmsg_type != RTM_NEWROUTE) continue;
    RouteInfo info;
    auto* route = reinterpret_cast<rtmsg*>(NLMSG_DATA(header));
    int length = static_cast<int>(RTM_PAYLOAD(header));
    for (auto* a = RTM_RTA(route); RTA_OK(a, length); a = RTA_NEXT(a, length)) {
      switch (a->rta_type) {
        case RTA_OIF: {
          char name[IF_NAMESIZE] = {};
          if (if_indextoname(*reinterpret_cast<int*>(RTA_DATA(a)), name)) info.interface = name;
          break;
        }
        case RTA_PREFSRC:
          info.source_address = AddressText(family, RTA_DATA(a));
          break;
        case RTA_GATEWAY:
          info.gateway = AddressText(family, RTA_DATA(a));
          break;
        case RTA_METRICS: {
          int metrics_length = static_cast<int>(RTA_PAYLOAD(a));
          for (auto* m = reinterpret_cast<rtattr*>(RTA_DATA(a)); RTA_OK(m, metrics_length);
               m = RTA_NEXT(m, metrics_length)) {
            if (m->rta_type == RTAX_MTU) info.mtu = *reinterpret_cast<int*>(RTA_DATA(m));
          }
          break;
        }
        default:
          break;
      }
    }
    if (info.interface.empty()) return no_route("route to " + address + " has no interface");
    if (info.mtu == 0) info.mtu = InterfaceMtu(info.interface);
    return info;
  }
  return no_route("no route reply for " + address);
}

}  // namespace fabric
