#include "exporter/parse/sysfs_values.h"

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

bool IsPciAddress(std::string_view s) {
  // dddd:bb:dd.f, all hex but the function digit.
  if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return s[11] >= '0' && s[11] <= '7';
}

std::string PciAddressInPath(std::string_view path) {
  while (!path.empty()) {
    size_t slash = path.rfind('/');
    std::string_view last = slash == std::string_view::npos ? path : path.substr(slash + 1);
    if (IsPciAddress(last)) return std::string(last);
    if (slash == std::string_view::npos) break;
    path = path.substr(0, slash);
  }
  return "";
}

}  // namespace fabric
