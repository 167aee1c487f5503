#include "common/parse/proc_net_route_parse.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <cstring>

#include "common/strings.h"

namespace fabric {
namespace {

constexpr uint64_t kRtfUp = 0x0001;
constexpr uint64_t kRtfReject = 0x0200;

std::string Where(std::string_view source, size_t line_index) {
  return std::string(source) + ":" + std::to_string(line_index + 1) + ": ";
}

int PrefixLength(uint32_t mask_network_order) {
  uint32_t host = ntohl(mask_network_order);
  int n = 0;
  while (n < 32 && (host & (0x80000000u >> n))) ++n;
  return n;
}

bool Matches(const ProcRoute& r, const unsigned char* address) {
  const int full = r.prefix_len / 8;
  if (std::memcmp(r.dst.data(), address, static_cast<size_t>(full)) != 0) return false;
  const int rest = r.prefix_len % 8;
  if (rest == 0) return true;
  const unsigned char mask = static_cast<unsigned char>(0xff << (8 - rest));
  return (r.dst[full] & mask) == (address[full] & mask);
}

}  // namespace

Result<std::vector<ProcRoute>> ParseProcNetRoute(std::string_view text, std::string_view source) {
  std::vector<ProcRoute> out;
  auto lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    auto f = SplitFields(lines[i]);
    if (f.empty() || (i == 0 && f[0] == "Iface")) continue;
    if (f.size() < 8) return MakeError(Where(source, i) + "too few columns: " + Quote(lines[i]));
    auto dst = ParseUint64(f[1], 16);
    auto flags = ParseUint64(f[3], 16);
    auto metric = ParseUint64(f[6]);
    auto mask = ParseUint64(f[7], 16);
    if (!dst || !flags || !metric || !mask || *dst > 0xffffffffu || *mask > 0xffffffffu ||
        *metric > 0xffffffffu) {
      return MakeError(Where(source, i) + "bad number in " + Quote(lines[i]));
    }
    if (!(*flags & kRtfUp) || (*flags & kRtfReject)) continue;
    ProcRoute r;
    r.family = AF_INET;
    // The kernel prints the big-endian words as host integers: their bytes
    // in memory are the address again.
    const uint32_t dst32 = static_cast<uint32_t>(*dst);
    const uint32_t mask32 = static_cast<uint32_t>(*mask);
    std::memcpy(r.dst.data(), &dst32, 4);
    uint32_t mask_network;
    std::memcpy(&mask_network, &mask32, 4);
    r.prefix_len = PrefixLength(mask_network);
    r.metric = static_cast<uint32_t>(*metric);
    r.interface = std::string(f[0]);
    out.push_back(std::move(r));
  }
  return out;
}

Result<std::vector<ProcRoute>> ParseProcNetIpv6Route(std::string_view text,
                                                     std::string_view source) {
  std::vector<ProcRoute> out;
  auto lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    auto f = SplitFields(lines[i]);
    if (f.empty()) continue;
    if (f.size() < 10 || f[0].size() != 32) {
      return MakeError(Where(source, i) + "expected 10 columns: " + Quote(lines[i]));
    }
    ProcRoute r;
    r.family = AF_INET6;
    for (size_t b = 0; b < 16; ++b) {
      auto byte = ParseUint64(f[0].substr(2 * b, 2), 16);
      if (!byte) return MakeError(Where(source, i) + "bad destination in " + Quote(lines[i]));
      r.dst[b] = static_cast<unsigned char>(*byte);
    }
    auto prefix = ParseUint64(f[1], 16);
    auto metric = ParseUint64(f[5], 16);
    auto flags = ParseUint64(f[8], 16);
    if (!prefix || *prefix > 128 || !metric || *metric > 0xffffffffu || !flags) {
      return MakeError(Where(source, i) + "bad number in " + Quote(lines[i]));
    }
    if (!(*flags & kRtfUp) || (*flags & kRtfReject)) continue;
    r.prefix_len = static_cast<int>(*prefix);
    r.metric = static_cast<uint32_t>(*metric);
    r.interface = std::string(f[9]);
    out.push_back(std::move(r));
  }
  return out;
}

std::string RouteInterfaceFor(const std::vector<ProcRoute>& routes, std::string_view address) {
  unsigned char bytes[16] = {};
  const std::string text(address);
  int family = AF_INET;
  if (inet_pton(AF_INET, text.c_str(), bytes) != 1) {
    if (inet_pton(AF_INET6, text.c_str(), bytes) != 1) return "";
    family = AF_INET6;
  }
  const ProcRoute* best = nullptr;
  for (const auto& r : routes) {
    if (r.family != family || !Matches(r, bytes)) continue;
    if (best == nullptr || r.prefix_len > best->prefix_len ||
        (r.prefix_len == best->prefix_len && r.metric < best->metric)) {
      best = &r;
    }
  }
  return best ? best->interface : "";
}

std::string DefaultRouteInterface(const std::vector<ProcRoute>& routes) {
  for (int family : {AF_INET, AF_INET6}) {
    const ProcRoute* best = nullptr;
    for (const auto& r : routes) {
      if (r.family != family || r.prefix_len != 0 || r.interface == "lo") continue;
      if (best == nullptr || r.metric < best->metric) best = &r;
    }
    if (best) return best->interface;
  }
  return "";
}

}  // namespace fabric
