#include "common/parse/softnet_parse.h"

#include <string>

#include "common/strings.h"

namespace fabric {

Result<std::vector<SoftnetCpuStats>> ParseSoftnetStat(std::string_view text,
                                                      std::string_view source) {
  std::vector<SoftnetCpuStats> cpus;
  auto lines = SplitLines(text);
  size_t expected_columns = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string where = std::string(source) + ":" + std::to_string(i + 1) + ": ";
    auto fields = SplitFields(lines[i]);
    if (fields.empty()) continue;
    if (fields.size() < 9) {
      return MakeError(where + "expected at least 9 columns, got " + std::to_string(fields.size()));
    }
    if (expected_columns == 0) expected_columns = fields.size();
    if (fields.size() != expected_columns) {
      return MakeError(where + "expected " + std::to_string(expected_columns) +
                       " columns like the first line, got " + std::to_string(fields.size()));
    }
    std::vector<uint64_t> values;
    values.reserve(fields.size());
    for (size_t col = 0; col < fields.size(); ++col) {
      auto v = ParseUint64(fields[col], 16);
      if (!v) {
        return MakeError(where + "column " + std::to_string(col + 1) +
                         " is not hex: " + Quote(fields[col]));
      }
      values.push_back(*v);
    }
    SoftnetCpuStats stats;
    stats.cpu = static_cast<uint32_t>(cpus.size());
    stats.processed = values[0];
    stats.dropped = values[1];
    stats.time_squeeze = values[2];
    if (values.size() >= 10) stats.received_rps = values[9];
    if (values.size() >= 11) stats.flow_limit_count = values[10];
    if (values.size() >= 13) {
      stats.backlog_len = values[11];
      stats.cpu = static_cast<uint32_t>(values[12]);
    }
    if (values.size() >= 15) {
      stats.input_queue_len = values[13];
      stats.process_queue_len = values[14];
    }
    cpus.push_back(stats);
  }
  return cpus;
}

}  // namespace fabric
