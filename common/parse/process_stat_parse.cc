#include "common/parse/process_stat_parse.h"

#include <string>
#include <vector>

#include "common/strings.h"

namespace fabric {

Result<ProcessStat> ParseProcessStat(std::string_view text) {
  const size_t close = text.rfind(')');
  if (close == std::string_view::npos) return MakeError("stat: no ')' after the command name");
  // Fields from 3 (state) on.
  const std::vector<std::string_view> f = SplitFields(text.substr(close + 1));
  constexpr size_t kFirst = 3;
  struct Field {
    size_t number;
    uint64_t ProcessStat::*member;
  };
  constexpr Field kFields[] = {{14, &ProcessStat::user_ticks},
                               {15, &ProcessStat::system_ticks},
                               {22, &ProcessStat::start_ticks},
                               {23, &ProcessStat::virtual_bytes},
                               {24, &ProcessStat::resident_pages}};
  ProcessStat stat;
  for (const Field& field : kFields) {
    const size_t index = field.number - kFirst;
    if (index >= f.size()) {
      return MakeError("stat: field " + std::to_string(field.number) + " missing");
    }
    auto value = ParseUint64(f[index]);
    if (!value) return MakeError("stat: field " + std::to_string(field.number) + " not a number");
    stat.*field.member = *value;
  }
  return stat;
}

Result<uint64_t> ParseBootTime(std::string_view proc_stat) {
  int line_no = 0;
  for (auto line : SplitLines(proc_stat)) {
    ++line_no;
    const std::vector<std::string_view> f = SplitFields(line);
    if (f.empty() || f[0] != "btime") continue;
    auto value = f.size() == 2 ? ParseUint64(f[1]) : std::nullopt;
    if (!value) return MakeError("stat:" + std::to_string(line_no) + ": bad btime");
    return *value;
  }
  return MakeError("stat: no btime line");
}

Result<std::optional<uint64_t>> ParseMaxOpenFiles(std::string_view limits) {
  constexpr std::string_view kRow = "Max open files";
  int line_no = 0;
  for (auto line : SplitLines(limits)) {
    ++line_no;
    if (!StartsWith(line, kRow)) continue;
    // "Max open files            1024                 1048576              files"
    const std::vector<std::string_view> f = SplitFields(line.substr(kRow.size()));
    if (f.empty()) return MakeError("limits:" + std::to_string(line_no) + ": no soft limit");
    if (f[0] == "unlimited") return std::optional<uint64_t>();
    auto value = ParseUint64(f[0]);
    if (!value) return MakeError("limits:" + std::to_string(line_no) + ": bad soft limit");
    return std::optional<uint64_t>(*value);
  }
  return MakeError("limits: no \"Max open files\" row");
}

}  // namespace fabric
