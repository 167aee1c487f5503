#include "exporter/http/listen_address.h"

#include <arpa/inet.h>

#include "common/strings.h"

namespace fabric {

Result<std::string> ToCivetListeningPort(std::string_view address) {
  auto colon = address.rfind(':');
  if (colon == std::string_view::npos) {
    return MakeError("listen address " + Quote(address) + " must be HOST:PORT or :PORT");
  }
  std::string_view host = address.substr(0, colon);
  std::string_view port = address.substr(colon + 1);
  auto port_number = ParseUint64(port);
  if (!port_number || *port_number > 65535) {
    return MakeError("listen address " + Quote(address) + ": port must be 0-65535");
  }
  if (host.empty()) return std::string(port);
  if (host.front() == '[') {
    if (host.back() != ']') {
      return MakeError("listen address " + Quote(address) + ": unclosed '[' in IPv6 address");
    }
    std::string inner(host.substr(1, host.size() - 2));
    in6_addr addr6{};
    if (inet_pton(AF_INET6, inner.c_str(), &addr6) != 1) {
      return MakeError("listen address " + Quote(address) + ": not a numeric IPv6 address");
    }
    return std::string(address);
  }
  std::string host_str(host);
  in_addr addr{};
  if (inet_pton(AF_INET, host_str.c_str(), &addr) != 1) {
    return MakeError("listen address " + Quote(address) +
                     ": host must be a numeric IPv4 address or [IPv6] (not a name)");
  }
  return std::string(address);
}

}  // namespace fabric
