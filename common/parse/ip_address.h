// IP addresses and prefixes as plain values: parsed from text (config,
// recordings) or from the raw bytes netlink hands over, compared, formatted.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace fabric {

struct IpAddress {
  bool v6 = false;
  // IPv4 in the first 4 bytes, the rest zero.
  std::array<uint8_t, 16> bytes{};

  static IpAddress V4(const uint8_t* b);
  // An IPv4-mapped IPv6 address (::ffff:a.b.c.d) becomes the IPv4 address, so
  // a dual-stack socket and a v4 socket to the same peer aggregate together.
  static IpAddress V6(const uint8_t* b);

  bool IsLoopback() const;
  bool IsUnspecified() const;
  std::string ToString() const;

  auto operator<=>(const IpAddress&) const = default;
};

struct IpPrefix {
  IpAddress address;
  int length = 0;  // 0-32 for IPv4, 0-128 for IPv6.

  bool Contains(const IpAddress& a) const;
  std::string ToString() const;
};

Result<IpAddress> ParseIpAddress(std::string_view text);
// "198.18.9.0/24", "fd00::/8"; a bare address is a host prefix (/32, /128).
Result<IpPrefix> ParseIpPrefix(std::string_view text);

}  // namespace fabric
