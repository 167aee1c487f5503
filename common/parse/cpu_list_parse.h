// CPU sets as sysfs and procfs write them: lists ("0-3,8,10-11", cpulist and
// smp_affinity_list files) and hex masks ("ff,00000001", rps_cpus and
// xps_cpus). Pure: no I/O.
#pragma once

#include <string_view>
#include <vector>

#include "common/result.h"

namespace fabric {

// "0-3,8,10-11" -> {0,1,2,3,8,10,11}; an empty list is no CPUs. CPU numbers
// above 65535 are an error (no kernel has that many).
Result<std::vector<int>> ParseCpuList(std::string_view text);

// "00000000,000000f1" (32-bit hex words, most significant first, as
// rps_cpus and xps_cpus print them) -> {0,4,5,6,7}; all zeros is no CPUs.
Result<std::vector<int>> ParseCpuMask(std::string_view text);

}  // namespace fabric
