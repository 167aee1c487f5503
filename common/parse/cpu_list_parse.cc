#include "common/parse/cpu_list_parse.h"

#include <cstdint>

#include "common/strings.h"

namespace fabric {

Result<std::vector<int>> ParseCpuList(std::string_view text) {
  std::vector<int> out;
  text = TrimSpace(text);
  size_t start = 0;
  while (start < text.size()) {
    size_t comma = text.find(',', start);
    std::string_view item =
        text.substr(start, comma == std::string_view::npos ? text.size() - start : comma - start);
    auto dash = item.find('-');
    auto lo = ParseUint64(item.substr(0, dash));
    auto hi = dash == std::string_view::npos ? lo : ParseUint64(item.substr(dash + 1));
    if (!lo || !hi || *hi < *lo || *hi > 65535) return MakeError("bad CPU list " + Quote(text));
    for (uint64_t c = *lo; c <= *hi; ++c) out.push_back(static_cast<int>(c));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace fabric
