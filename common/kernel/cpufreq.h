// devices/system/cpu/cpuN/cpufreq: the frequency governor each CPU runs
// under (performance, powersave, schedutil, ...). A NIC's interrupt CPUs on
// powersave wake slowly from idle and add receive latency under bursts.
#pragma once

#include <optional>
#include <string>

#include "common/read/sysroot.h"
#include "common/result.h"

namespace fabric {

// cpuN/cpufreq/scaling_governor; nullopt without cpufreq (a VM, a kernel
// without a cpufreq driver).
Result<std::optional<std::string>> ReadCpuGovernor(const SysRoot& root, int cpu);

}  // namespace fabric
