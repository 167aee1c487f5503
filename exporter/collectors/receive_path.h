// The receive-path facts of one NIC that set a node apart from its peers:
// the NUMA node of the NIC against the CPUs its interrupts are affined to
// (/sys/class/net/IF/device/msi_irqs, /proc/irq/N/smp_affinity_list), its
// queues with RPS/XPS masks set, and the frequency governor of the CPUs that
// serve it. Read through common/kernel; every value is a small count or code,
// so a NIC has a fixed handful of series. Coalescing, offloads, rings and
// pause come from the ethtool backend; ASPM from the pcie collector.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "common/read/file_reader.h"
#include "common/read/sysroot.h"
#include "common/result.h"
#include "exporter/metrics/metric_sink.h"

namespace fabric {

// What the host says once per scrape, shared by every NIC: CPU -> NUMA node
// and the governors read so far.
struct ReceivePathHost {
  std::map<int, int> cpu_nodes;  // Empty without NUMA information.
  std::map<int, std::optional<std::string>> governors;
};

struct IrqPlacement {
  std::optional<int> numa_node;
  int irqs = 0;
  std::optional<int> irqs_off_node;  // Known when the node and the CPU map are.
  std::vector<int> cpus;             // Every CPU some IRQ of the NIC may run on.
};
// Source "irq_affinity"; absent-free: a NIC without msi_irqs has 0 IRQs.
Result<IrqPlacement> ReadIrqPlacement(const SysRoot& root, const std::string& ifname,
                                      const AttributeDir& interface_dir,
                                      const ReceivePathHost& host);

struct QueueSteering {
  int rx_queues = 0, tx_queues = 0;
  std::optional<int> rps_queues, xps_queues;  // nullopt: the kernel has no such masks.
};
// Source "queues".
Result<QueueSteering> ReadQueueSteering(const AttributeDir& interface_dir);

// The governor most of `cpus` run under (ties: the first in the name order),
// with its code; nullopt without cpufreq. Source "cpufreq".
struct GovernorFact {
  std::string governor;
  int code = 0;
};
Result<std::optional<GovernorFact>> ReadGovernor(const SysRoot& root, const std::vector<int>& cpus,
                                                 ReceivePathHost& host);

// The CPUs of `node`, from the host's map.
std::vector<int> NodeCpus(const ReceivePathHost& host, int node);

void EmitIrqPlacement(const IrqPlacement& p, const LabelPairs& with_role, MetricSink& sink);
void EmitQueueSteering(const QueueSteering& q, const LabelPairs& with_role, MetricSink& sink);
void EmitGovernor(const GovernorFact& g, const LabelPairs& with_role, MetricSink& sink);

}  // namespace fabric
