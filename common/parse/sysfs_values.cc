#include "common/parse/sysfs_values.h"

#include <cctype>

#include "common/strings.h"

namespace fabric {

Result<IbStateValue> ParseIbState(std::string_view text, std::string_view source) {
  std::string_view t = TrimSpace(text);
  size_t colon = t.find(':');
  auto code = ParseInt64(TrimSpace(t.substr(0, colon)));
  if (colon == std::string_view::npos || !code) {
    return MakeError(std::string(source) + ": expected \"CODE: NAME\", got " + Quote(t));
  }
  return IbStateValue{*code, std::string(TrimSpace(t.substr(colon + 1)))};
}

Result<double> ParseIbRateBytes(std::string_view text, std::string_view source) {
  auto fields = SplitFields(text);
  std::optional<double> gbps;
  if (fields.size() >= 2 && fields[1] == "Gb/sec") gbps = ParseDouble(fields[0]);
  if (!gbps || *gbps < 0) {
    return MakeError(std::string(source) + ": expected \"N Gb/sec (...)\", got " + Quote(text));
  }
  return *gbps * 1e9 / 8;
}

std::string PciAddressInPath(std::string_view path) {
  auto addresses = PciAddressesInPath(path);
  return addresses.empty() ? std::string() : addresses.back();
}

}  // namespace fabric
