// The kernel's route to a peer (what `ip route get ADDR` prints), asked over
// rtnetlink: which interface traffic leaves by, from which source address,
// and the MTU that applies (a learned path MTU, else the interface's).
#pragma once

#include <string>

#include "common/result.h"

namespace fabric {

struct RouteInfo {
  std::string interface;       // Egress interface name.
  std::string source_address;  // Preferred source address; may be empty.
  std::string gateway;         // Next hop when not directly connected; may be empty.
  int mtu = 0;                 // Route MTU if set or learned, else the interface MTU.
};

Result<RouteInfo> LookupRoute(const std::string& address);

}  // namespace fabric
