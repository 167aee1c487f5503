// The parser of /proc/PID/task/TID/schedstat: how long a thread has run and
// how long it has waited to run. Pure: no I/O.
#pragma once

#include <cstdint>

#include "common/result.h"

namespace fabric {

// The three fields of a schedstat line (Documentation/scheduler/sched-stats):
// time on a CPU, time runnable but waiting for one (a busy run queue, and a
// cgroup's CPU quota used up: a throttled task stays queued), both in
// nanoseconds, and the number of timeslices run.
struct Schedstat {
  uint64_t on_cpu_ns = 0;
  uint64_t run_delay_ns = 0;
  uint64_t timeslices = 0;
};

// "1234 5678 9\n". Errors say which field is wrong.
Result<Schedstat> ParseSchedstat(std::string_view text);

}  // namespace fabric
