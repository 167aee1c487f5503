#include "common/parse/ip_address.h"

#include <arpa/inet.h>

#include <cstring>

#include "common/strings.h"

namespace fabric {

IpAddress IpAddress::V4(const uint8_t* b) {
  IpAddress a;
  std::memcpy(a.bytes.data(), b, 4);
  return a;
}

IpAddress IpAddress::V6(const uint8_t* b) {
  static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(b, kMapped, sizeof(kMapped)) == 0) return V4(b + 12);
  IpAddress a;
  a.v6 = true;
  std::memcpy(a.bytes.data(), b, 16);
  return a;
}

bool IpAddress::IsLoopback() const {
  if (!v6) return bytes[0] == 127;
  for (int i = 0; i < 15; ++i) {
    if (bytes[i] != 0) return false;
  }
  return bytes[15] == 1;
}

bool IpAddress::IsUnspecified() const {
  for (auto b : bytes) {
    if (b != 0) return false;
  }
  return true;
}

std::string IpAddress::ToString() const {
  char buf[INET6_ADDRSTRLEN] = {};
  ::inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), buf, sizeof(buf));
  return buf;
}

bool IpPrefix::Contains(const IpAddress& a) const {
  if (a.v6 != address.v6) return false;
  int full = length / 8;
  if (std::memcmp(a.bytes.data(), address.bytes.data(), full) != 0) return false;
  int rest = length % 8;
  if (rest == 0) return true;
  uint8_t mask = static_cast<uint8_t>(0xff << (8 - rest));
  return (a.bytes[full] & mask) == (address.bytes[full] & mask);
}

std::string IpPrefix::ToString() const { return address.ToString() + "/" + std::to_string(length); }

Result<IpAddress> ParseIpAddress(std::string_view text) {
  std::string s(TrimSpace(text));
  uint8_t buf[16] = {};
  if (::inet_pton(AF_INET, s.c_str(), buf) == 1) return IpAddress::V4(buf);
  if (::inet_pton(AF_INET6, s.c_str(), buf) == 1) return IpAddress::V6(buf);
  return MakeError("not an IP address: " + Quote(text));
}

Result<IpPrefix> ParseIpPrefix(std::string_view text) {
  std::string_view s = TrimSpace(text);
  auto slash = s.find('/');
  auto address = ParseIpAddress(s.substr(0, slash));
  if (!address.ok()) return Unexpected{address.error()};
  const int max = address->v6 ? 128 : 32;
  int length = max;
  if (slash != std::string_view::npos) {
    auto parsed = ParseUint64(s.substr(slash + 1));
    if (!parsed || *parsed > static_cast<uint64_t>(max)) {
      return MakeError("bad prefix length in " + Quote(text) + " (0-" + std::to_string(max) + ")");
    }
    length = static_cast<int>(*parsed);
  }
  return IpPrefix{*address, length};
}

}  // namespace fabric
