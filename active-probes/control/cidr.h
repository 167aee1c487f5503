// Peer allow-lists for the responder: IPv4 and IPv6 CIDR blocks. An
// IPv4-mapped IPv6 peer (::ffff:a.b.c.d, what a dual-stack listener reports)
// matches IPv4 blocks.
#pragma once

#include <sys/socket.h>

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace fabric::probe {

struct Cidr {
  int family = 0;  // AF_INET or AF_INET6
  std::array<unsigned char, 16> addr{};
  int prefix = 0;
};

Result<Cidr> ParseCidr(std::string_view text);
// Comma-separated list; an empty list is an error (allow nothing by accident
// is better than allow everyone by accident, so the caller must say).
Result<std::vector<Cidr>> ParseCidrList(std::string_view text);
bool CidrContains(const Cidr& cidr, const sockaddr_storage& peer);
bool AllowListContains(const std::vector<Cidr>& list, const sockaddr_storage& peer);

// "1.2.3.4" or "2001:db8::1" (no port) of a socket address.
std::string AddressText(const sockaddr_storage& addr);
// Same host address, ignoring ports; IPv4-mapped IPv6 equals its IPv4 form.
bool SameHost(const sockaddr_storage& a, const sockaddr_storage& b);

}  // namespace fabric::probe
