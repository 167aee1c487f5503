// /proc/irq: which CPUs an interrupt may be delivered to. The netdev
// collector compares a NIC's queue interrupts with the NIC's NUMA node.
#pragma once

#include <vector>

#include "common/read/sysroot.h"
#include "common/result.h"

namespace fabric {

// /proc/irq/<irq>/smp_affinity_list as CPU numbers; absent when the
// interrupt is gone (or procfs hides it).
Result<std::vector<int>> ReadIrqAffinity(const SysRoot& root, int irq);

}  // namespace fabric
