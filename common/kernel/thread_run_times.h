// How long each thread of a process has been runnable: on a CPU, or ready and
// waiting for one. The one reader of /proc/PID/task/TID/schedstat; parsing is
// in common/parse/schedstat_parse. The flows collector asks for the processes
// that hold the sockets of received bulk flows: a receiving thread runnable for
// a whole interval never waited for data, so its own work, not the network,
// paced the flow.
#pragma once

#include <cstdint>
#include <map>

#include "common/read/sysroot.h"

namespace fabric {

// Nanoseconds each thread of `pid` has been runnable (schedstat's on-CPU time
// plus its run delay), by thread id. Empty when the process is gone or its
// procfs has no schedstat (a kernel without CONFIG_SCHED_INFO); a thread that
// exits during the walk is left out. Never an error: the caller judges no
// interval it cannot read.
std::map<uint32_t, uint64_t> ReadThreadRunnableNanoseconds(const SysRoot& root, uint32_t pid);

}  // namespace fabric
