// Parsers for sysctl values as procfs shows them under /proc/sys: a single
// integer, a whitespace-separated vector of integers (tcp_rmem), or a word.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace fabric {

Result<int64_t> ParseSysctlInt(std::string_view text, std::string_view source);

// Exactly `count` integers, as in tcp_rmem ("4096 131072 6291456").
Result<std::vector<int64_t>> ParseSysctlInts(std::string_view text, size_t count,
                                             std::string_view source);

// A single word such as "cubic"; empty or multi-word values are errors.
Result<std::string> ParseSysctlWord(std::string_view text, std::string_view source);

}  // namespace fabric
