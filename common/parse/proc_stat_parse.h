// Parser for /proc/stat's CPU lines: the aggregate "cpu" line and one
// "cpuN" line per CPU, in USER_HZ ticks. Other lines (intr, ctxt, ...) are
// skipped. Pure: no I/O.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace fabric {

// One CPU line of /proc/stat. Columns a kernel does not print stay 0.
struct CpuTimes {
  int cpu = -1;  // -1 for the aggregate "cpu" line
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  uint64_t Total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
  uint64_t Busy() const { return Total() - idle - iowait; }
};

// Every CPU line in file order. Errors name the line ("stat:3: bad number");
// a text without any CPU line is an error.
Result<std::vector<CpuTimes>> ParseProcStat(std::string_view text);

}  // namespace fabric
