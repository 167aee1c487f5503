#include "common/parse/block_stat_parse.h"

#include <string>
#include <vector>

#include "common/strings.h"

namespace fabric {

Result<BlockStat> ParseBlockStat(std::string_view text, std::string_view source) {
  auto fields = SplitFields(text);
  if (fields.size() != 11 && fields.size() != 15 && fields.size() != 17) {
    return MakeError(std::string(source) + ": expected 11, 15 or 17 numbers, got " +
                     std::to_string(fields.size()));
  }
  std::vector<uint64_t> v;
  for (size_t i = 0; i < fields.size(); ++i) {
    auto n = ParseUint64(fields[i]);
    if (!n) {
      return MakeError(std::string(source) + ": field " + std::to_string(i + 1) +
                       " is not a number: " + Quote(fields[i]));
    }
    v.push_back(*n);
  }
  // read I/Os, merges, sectors, ticks; write I/Os, merges, sectors, ticks;
  // in flight, io_ticks, time_in_queue; [discard x4]; [flush x2].
  return BlockStat{v[0], v[2], v[3], v[4], v[6], v[7], v[8], v[9]};
}

}  // namespace fabric
