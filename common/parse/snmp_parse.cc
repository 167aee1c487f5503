#include "common/parse/snmp_parse.h"

#include <vector>

#include "common/strings.h"

namespace fabric {

std::optional<int64_t> SnmpTable::Get(std::string_view prefix, std::string_view field) const {
  auto p = values_.find(prefix);
  if (p == values_.end()) return std::nullopt;
  auto f = p->second.find(field);
  if (f == p->second.end()) return std::nullopt;
  return f->second;
}

bool SnmpTable::HasPrefix(std::string_view prefix) const { return values_.count(prefix) > 0; }

void SnmpTable::MergeFrom(const SnmpTable& other) {
  for (const auto& [prefix, fields] : other.values_) {
    for (const auto& [name, value] : fields) values_[prefix][name] = value;
  }
}

Result<SnmpTable> ParseSnmpTable(std::string_view text, std::string_view source) {
  SnmpTable table;
  auto lines = SplitLines(text);
  size_t i = 0;
  auto where = [&](size_t line_index) {
    return std::string(source) + ":" + std::to_string(line_index + 1) + ": ";
  };
  while (i < lines.size()) {
    if (TrimSpace(lines[i]).empty()) {
      ++i;
      continue;
    }
    auto header = SplitFields(lines[i]);
    if (header.empty() || header[0].size() < 2 || header[0].back() != ':') {
      return MakeError(where(i) + "expected a \"Prefix:\" header line, got " + Quote(lines[i]));
    }
    if (i + 1 >= lines.size()) {
      return MakeError(where(i) + "header " + Quote(header[0]) + " has no value line");
    }
    auto values = SplitFields(lines[i + 1]);
    if (values.empty() || values[0] != header[0]) {
      return MakeError(where(i + 1) + "expected the value line for " + Quote(header[0]));
    }
    if (values.size() != header.size()) {
      return MakeError(where(i + 1) + std::to_string(header.size() - 1) + " field names but " +
                       std::to_string(values.size() - 1) + " values");
    }
    std::string prefix(header[0].substr(0, header[0].size() - 1));
    auto& fields = table.values_[prefix];
    for (size_t col = 1; col < header.size(); ++col) {
      auto v = ParseInt64(values[col]);
      if (!v) {
        return MakeError(where(i + 1) + prefix + " " + std::string(header[col]) +
                         " is not an integer: " + Quote(values[col]));
      }
      fields[std::string(header[col])] = *v;
    }
    i += 2;
  }
  return table;
}

}  // namespace fabric
