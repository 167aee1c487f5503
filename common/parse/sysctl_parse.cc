#include "common/parse/sysctl_parse.h"

#include "common/strings.h"

namespace fabric {

Result<std::vector<int64_t>> ParseSysctlInts(std::string_view text, size_t count,
                                             std::string_view source) {
  auto fields = SplitFields(text);
  if (fields.size() != count) {
    return MakeError(std::string(source) + ": expected " + std::to_string(count) +
                     " integer(s), got " + Quote(TrimSpace(text)));
  }
  std::vector<int64_t> values;
  for (auto field : fields) {
    auto v = ParseInt64(field);
    if (!v) return MakeError(std::string(source) + ": not an integer: " + Quote(field));
    values.push_back(*v);
  }
  return values;
}

Result<int64_t> ParseSysctlInt(std::string_view text, std::string_view source) {
  auto values = ParseSysctlInts(text, 1, source);
  if (!values.ok()) return Unexpected{values.error()};
  return values->front();
}

Result<std::string> ParseSysctlWord(std::string_view text, std::string_view source) {
  auto fields = SplitFields(text);
  if (fields.size() != 1) {
    return MakeError(std::string(source) + ": expected one word, got " + Quote(TrimSpace(text)));
  }
  return std::string(fields[0]);
}

}  // namespace fabric
