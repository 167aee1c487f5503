#include "common/parse/schedstat_parse.h"

#include <string>
#include <vector>

#include "common/strings.h"

namespace fabric {

Result<Schedstat> ParseSchedstat(std::string_view text) {
  const std::vector<std::string_view> f = SplitFields(text);
  if (f.size() != 3) {
    return MakeError("schedstat: expected 3 fields, got " + std::to_string(f.size()));
  }
  constexpr const char* kNames[] = {"on-CPU time", "run delay", "timeslices"};
  uint64_t values[3] = {};
  for (size_t i = 0; i < 3; ++i) {
    auto value = ParseUint64(f[i]);
    if (!value) {
      return MakeError(std::string("schedstat: ") + kNames[i] +
                       " is not a number: " + std::string(f[i]));
    }
    values[i] = *value;
  }
  return Schedstat{values[0], values[1], values[2]};
}

}  // namespace fabric
