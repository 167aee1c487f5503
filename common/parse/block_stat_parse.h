// Parser for a block device's stat file (/sys/block/DEV/stat,
// Documentation/block/stat.rst): 11 numbers, 15 with the discard fields
// (4.18), 17 with the flush fields (5.5). Sectors are 512 bytes whatever the
// device's block size.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/result.h"

namespace fabric {

struct BlockStat {
  uint64_t read_ios = 0;
  uint64_t read_sectors = 0;
  uint64_t read_ticks_ms = 0;
  uint64_t write_ios = 0;
  uint64_t write_sectors = 0;
  uint64_t write_ticks_ms = 0;
  uint64_t in_flight = 0;
  uint64_t io_ticks_ms = 0;  // Time the device had I/O in flight.
};

inline constexpr uint64_t kBlockSectorBytes = 512;

// `source` names the file in errors.
Result<BlockStat> ParseBlockStat(std::string_view text, std::string_view source);

}  // namespace fabric
