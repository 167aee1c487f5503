#include "common/parse/proc_stat_parse.h"

#include <string>

#include "common/strings.h"

namespace fabric {

Result<std::vector<CpuTimes>> ParseProcStat(std::string_view text) {
  std::vector<CpuTimes> out;
  int line_no = 0;
  for (auto line : SplitLines(text)) {
    ++line_no;
    if (!StartsWith(line, "cpu")) continue;
    auto f = SplitFields(line);
    if (f.size() < 8) return MakeError("stat:" + std::to_string(line_no) + ": too few columns");
    CpuTimes t;
    if (f[0] != "cpu") {
      auto id = ParseUint64(f[0].substr(3));
      if (!id) return MakeError("stat:" + std::to_string(line_no) + ": bad cpu id");
      t.cpu = static_cast<int>(*id);
    }
    uint64_t* cols[] = {&t.user,   &t.nice, &t.system,  &t.idle,
                        &t.iowait, &t.irq,  &t.softirq, &t.steal};
    for (size_t i = 0; i < 8; ++i) {
      if (i + 1 >= f.size()) break;
      auto v = ParseUint64(f[i + 1]);
      if (!v) return MakeError("stat:" + std::to_string(line_no) + ": bad number");
      *cols[i] = *v;
    }
    out.push_back(t);
  }
  if (out.empty()) return MakeError("stat: no cpu lines");
  return out;
}

}  // namespace fabric
