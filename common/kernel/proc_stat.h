// /proc/stat: per-CPU time, read through the read layer and parsed by
// common/parse/proc_stat_parse. The one reader of that file (the TCP probe
// samples it at its window edges to tell a CPU-bound run).
#pragma once

#include <vector>

#include "common/parse/proc_stat_parse.h"
#include "common/read/sysroot.h"
#include "common/result.h"

namespace fabric {

Result<std::vector<CpuTimes>> ReadProcStat(const SysRoot& root);

}  // namespace fabric
