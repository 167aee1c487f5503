#include "common/parse/cpu_list_parse.h"

#include <algorithm>
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

Result<std::vector<int>> ParseCpuMask(std::string_view text) {
  text = TrimSpace(text);
  std::vector<std::string_view> words;
  size_t start = 0;
  for (;;) {
    size_t comma = text.find(',', start);
    words.push_back(
        text.substr(start, comma == std::string_view::npos ? text.size() - start : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  // 2048 words are 65536 CPUs, the most ParseCpuList takes too.
  if (text.empty() || words.size() > 2048) return MakeError("bad CPU mask " + Quote(text));
  std::vector<int> out;
  for (size_t w = 0; w < words.size(); ++w) {
    if (words[w].empty() || words[w].size() > 8) return MakeError("bad CPU mask " + Quote(text));
    auto bits = ParseUint64(words[w], 16);
    if (!bits) return MakeError("bad CPU mask " + Quote(text));
    const int base = static_cast<int>(32 * (words.size() - 1 - w));
    for (int b = 0; b < 32; ++b) {
      if (*bits & (uint64_t{1} << b)) out.push_back(base + b);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace fabric
