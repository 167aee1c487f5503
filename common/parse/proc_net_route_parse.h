// The routing tables procfs prints: /proc/net/route (IPv4 main table, hex
// words in host byte order) and /proc/net/ipv6_route (hex in network order).
// The netdev collector asks them which interface carries traffic to the
// fleet's peers (a fabric NIC) and which holds the default route (the
// management NIC); files rather than netlink, so fixture trees carry them.
// Pure: no I/O.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace fabric {

struct ProcRoute {
  int family = 0;                          // AF_INET or AF_INET6
  std::array<unsigned char, 16> dst = {};  // Network byte order; 4 bytes used for IPv4.
  int prefix_len = 0;
  uint32_t metric = 0;
  std::string interface;
};

// Routes that are up (RTF_UP) and not reject routes; errors name the line.
Result<std::vector<ProcRoute>> ParseProcNetRoute(std::string_view text, std::string_view source);
Result<std::vector<ProcRoute>> ParseProcNetIpv6Route(std::string_view text,
                                                     std::string_view source);

// The interface of the most specific route to `address` (numeric IPv4 or
// IPv6), the lowest metric among equals; empty when none matches.
std::string RouteInterfaceFor(const std::vector<ProcRoute>& routes, std::string_view address);

// The interface of the default route (IPv4 first, then IPv6; lowest
// metric); empty when there is none.
std::string DefaultRouteInterface(const std::vector<ProcRoute>& routes);

}  // namespace fabric
