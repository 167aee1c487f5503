// Value parsers for fabric_probe flags: durations ("5s", "250ms", "1.5s"),
// byte sizes ("256K", "4M", "1G", powers of 1024) and counts.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace fabric::probe {

Result<std::chrono::milliseconds> ParseDurationFlag(std::string_view flag, std::string_view v);
Result<uint64_t> ParseBytesFlag(std::string_view flag, std::string_view v);
Result<uint64_t> ParseCountFlag(std::string_view flag, std::string_view v, uint64_t min,
                                uint64_t max);
// "1,2,4,8" -> {1,2,4,8}
Result<std::vector<uint32_t>> ParseCountList(std::string_view flag, std::string_view v,
                                             uint64_t max);

}  // namespace fabric::probe
