// Parser for /proc/net/softnet_stat: one line of hex columns per CPU. The
// column count grew with the kernel:
//    9  processed dropped time_squeeze 0 0 0 0 0 cpu_collision   (< 2.6.35)
//   10  + received_rps                                           (2.6.35)
//   11  + flow_limit_count                                       (3.11)
//   13  + backlog_len cpu_index                                  (5.10)
//   15  + input_qlen process_qlen                                (6.x)
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace fabric {

struct SoftnetCpuStats {
  // The CPU id: the kernel's own index column where present (13+ columns),
  // else the line number (older kernels skip offline CPUs, so that is only
  // an approximation, as it is in every tool that reads them).
  uint32_t cpu = 0;
  uint64_t processed = 0;
  uint64_t dropped = 0;
  uint64_t time_squeeze = 0;
  std::optional<uint64_t> received_rps;
  std::optional<uint64_t> flow_limit_count;
  std::optional<uint64_t> backlog_len;
  std::optional<uint64_t> input_queue_len;
  std::optional<uint64_t> process_queue_len;
};

// `source` names the file in error messages ("softnet_stat:3: ...").
Result<std::vector<SoftnetCpuStats>> ParseSoftnetStat(std::string_view text,
                                                      std::string_view source);

}  // namespace fabric
