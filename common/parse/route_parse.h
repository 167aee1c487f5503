// The kernel's answer to an RTM_GETROUTE request (what `ip route get ADDR`
// prints): one recv(2) buffer holding an RTM_NEWROUTE message, or an
// NLMSG_ERROR when there is no route. Pure: no I/O; every length is checked
// against the buffer, so a malformed reply cannot read past it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fabric {

struct RouteReply {
  enum class Kind {
    kNone,   // Neither a route nor an error in the buffer.
    kError,  // NLMSG_ERROR: `error` holds the errno the kernel sent.
    kRoute,  // RTM_NEWROUTE: the fields below.
  };
  Kind kind = Kind::kNone;
  int64_t error = 0;    // Positive errno (64 bits: a corrupt INT_MIN cannot overflow).
  uint32_t oif = 0;     // RTA_OIF, the egress interface index; 0 when absent.
  std::string prefsrc;  // RTA_PREFSRC as text; empty when absent.
  std::string gateway;  // RTA_GATEWAY as text; empty when absent.
  uint32_t mtu = 0;     // RTAX_MTU inside RTA_METRICS; 0 when absent.
};

// The first NLMSG_ERROR or RTM_NEWROUTE message of `buffer` decides; other
// messages are skipped. Addresses are read for the route's own family
// (rtm_family), attributes of the wrong size are ignored.
RouteReply ParseRouteReply(std::string_view buffer);

}  // namespace fabric
