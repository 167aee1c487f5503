#include "active-probes/control/cidr.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>
#include <optional>

#include "common/strings.h"

namespace fabric::probe {
namespace {

// Normalises to (family, 16 bytes): IPv4 and IPv4-mapped IPv6 become AF_INET.
std::pair<int, std::array<unsigned char, 16>> Normalize(const sockaddr_storage& ss) {
  std::array<unsigned char, 16> bytes{};
  if (ss.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&ss);
    std::memcpy(bytes.data(), &in->sin_addr, 4);
    return {AF_INET, bytes};
  }
  if (ss.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&ss);
    if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
      std::memcpy(bytes.data(), in6->sin6_addr.s6_addr + 12, 4);
      return {AF_INET, bytes};
    }
    std::memcpy(bytes.data(), in6->sin6_addr.s6_addr, 16);
    return {AF_INET6, bytes};
  }
  return {0, bytes};
}

}  // namespace

Result<Cidr> ParseCidr(std::string_view text) {
  text = TrimSpace(text);
  std::string addr(text);
  std::optional<uint64_t> prefix;
  if (auto slash = text.find('/'); slash != std::string_view::npos) {
    addr = std::string(text.substr(0, slash));
    prefix = ParseUint64(text.substr(slash + 1));
    if (!prefix) return MakeError("bad CIDR prefix length in " + Quote(text));
  }
  Cidr c;
  if (inet_pton(AF_INET, addr.c_str(), c.addr.data()) == 1) {
    c.family = AF_INET;
    c.prefix = static_cast<int>(prefix.value_or(32));
    if (c.prefix > 32) return MakeError("IPv4 prefix over 32 in " + Quote(text));
  } else if (inet_pton(AF_INET6, addr.c_str(), c.addr.data()) == 1) {
    c.family = AF_INET6;
    c.prefix = static_cast<int>(prefix.value_or(128));
    if (c.prefix > 128) return MakeError("IPv6 prefix over 128 in " + Quote(text));
  } else {
    return MakeError("not an IP address or CIDR block: " + Quote(text));
  }
  return c;
}

Result<std::vector<Cidr>> ParseCidrList(std::string_view text) {
  std::vector<Cidr> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string_view item =
        text.substr(start, comma == std::string_view::npos ? text.size() - start : comma - start);
    if (!TrimSpace(item).empty()) {
      auto c = ParseCidr(item);
      if (!c.ok()) return Unexpected{c.error()};
      out.push_back(*c);
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (out.empty()) return MakeError("empty allow-list");
  return out;
}

bool CidrContains(const Cidr& cidr, const sockaddr_storage& peer) {
  auto [family, bytes] = Normalize(peer);
  if (family != cidr.family) return false;
  int full = cidr.prefix / 8;
  if (std::memcmp(bytes.data(), cidr.addr.data(), static_cast<size_t>(full)) != 0) return false;
  int rest = cidr.prefix % 8;
  if (rest == 0) return true;
  unsigned char mask = static_cast<unsigned char>(0xff << (8 - rest));
  return (bytes[static_cast<size_t>(full)] & mask) == (cidr.addr[static_cast<size_t>(full)] & mask);
}

bool AllowListContains(const std::vector<Cidr>& list, const sockaddr_storage& peer) {
  for (const auto& c : list) {
    if (CidrContains(c, peer)) return true;
  }
  return false;
}

std::string AddressText(const sockaddr_storage& addr) {
  auto [family, bytes] = Normalize(addr);
  char buf[INET6_ADDRSTRLEN] = {};
  if (family == 0 || inet_ntop(family, bytes.data(), buf, sizeof(buf)) == nullptr) return "?";
  return buf;
}

bool SameHost(const sockaddr_storage& a, const sockaddr_storage& b) {
  return Normalize(a) == Normalize(b);
}

}  // namespace fabric::probe
