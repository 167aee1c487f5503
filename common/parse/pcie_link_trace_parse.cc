#include "common/parse/pcie_link_trace_parse.h"

#include <cmath>
#include <string>

#include "common/strings.h"

namespace fabric {

Result<std::vector<PcieLinkSample>> ParsePcieLinkTrace(std::string_view text,
                                                       std::string_view source) {
  std::vector<PcieLinkSample> out;
  auto lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = TrimSpace(lines[i]);
    if (line.empty() || line[0] == '#') continue;
    const std::string where = std::string(source) + ":" + std::to_string(i + 1) + ": ";
    auto f = SplitFields(line);
    if (f.size() != 3) return MakeError(where + "expected SECONDS SPEED_GTS WIDTH");
    auto t = ParseDouble(f[0]);
    auto speed = ParseDouble(f[1]);
    auto width = ParseUint64(f[2]);
    if (!t || !speed || !width || !std::isfinite(*t) || !std::isfinite(*speed) || *t < 0 ||
        *speed < 0 || *speed > 1000 || *width > 64) {
      return MakeError(where + "bad sample " + Quote(line));
    }
    if (!out.empty() && *t < out.back().seconds) return MakeError(where + "time goes backwards");
    PcieLinkSample s;
    s.seconds = *t;
    if (*speed > 0) s.speed_gts = *speed;
    if (*width > 0) s.width = static_cast<int>(*width);
    out.push_back(s);
  }
  return out;
}

}  // namespace fabric
