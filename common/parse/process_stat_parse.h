// Parsers for what a process's own cost is read from: /proc/PID/stat (CPU
// time, start time, memory), the "btime" line of /proc/stat (boot time, which
// the start time counts from) and the "Max open files" row of /proc/PID/limits.
// Pure: no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "common/result.h"

namespace fabric {

// The fields of /proc/PID/stat the process metrics need (proc(5)); times in
// clock ticks (sysconf(_SC_CLK_TCK)).
struct ProcessStat {
  uint64_t user_ticks = 0;      // utime, field 14
  uint64_t system_ticks = 0;    // stime, field 15
  uint64_t start_ticks = 0;     // starttime, field 22: ticks after boot
  uint64_t virtual_bytes = 0;   // vsize, field 23
  uint64_t resident_pages = 0;  // rss, field 24
};

// The command name (field 2) is in parentheses and may itself hold spaces and
// ')', so the fields are counted from the last ')'. Errors say which field.
Result<ProcessStat> ParseProcessStat(std::string_view text);

// The boot time in Unix seconds from /proc/stat's "btime" line.
Result<uint64_t> ParseBootTime(std::string_view proc_stat);

// The soft limit of "Max open files" in /proc/PID/limits; nullopt for
// "unlimited".
Result<std::optional<uint64_t>> ParseMaxOpenFiles(std::string_view limits);

}  // namespace fabric
