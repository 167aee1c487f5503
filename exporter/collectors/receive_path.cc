#include "exporter/collectors/receive_path.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "common/kernel/cpufreq.h"
#include "common/kernel/irq.h"
#include "common/kernel/net_class.h"
#include "common/kernel/numa.h"

namespace fabric {
namespace {

// Codes for the governors the kernel ships; the code is the series' value so
// the peer comparison (rules) can find the fleet's most common one.
int GovernorCode(const std::string& g) {
  static const char* const kKnown[] = {"performance", "powersave",    "schedutil",
                                       "ondemand",    "conservative", "userspace"};
  for (size_t i = 0; i < std::size(kKnown); ++i) {
    if (g == kKnown[i]) return static_cast<int>(i) + 1;
  }
  return 7;  // other
}

}  // namespace

std::vector<int> NodeCpus(const ReceivePathHost& host, int node) {
  std::vector<int> cpus;
  for (const auto& [cpu, n] : host.cpu_nodes) {
    if (n == node) cpus.push_back(cpu);
  }
  return cpus;
}

Result<IrqPlacement> ReadIrqPlacement(const SysRoot& root, const std::string& ifname,
                                      const AttributeDir& interface_dir,
                                      const ReceivePathHost& host) {
  IrqPlacement p;
  p.numa_node = NetDeviceNumaNode(root, ifname);
  auto irqs = ListNetDeviceIrqs(interface_dir);
  if (irqs.absent()) return p;
  if (!irqs.ok()) return Unexpected{irqs.error()};
  std::set<int> all_cpus;
  int off_node = 0;
  for (int irq : *irqs) {
    auto cpus = ReadIrqAffinity(root, irq);
    if (cpus.absent()) continue;  // Freed between the listing and the read.
    if (!cpus.ok()) return Unexpected{cpus.error()};
    ++p.irqs;
    all_cpus.insert(cpus->begin(), cpus->end());
    if (!p.numa_node || host.cpu_nodes.empty()) continue;
    // Off the node: no CPU the interrupt may run on belongs to the NIC's node.
    bool on_node = false;
    for (int cpu : *cpus) {
      auto it = host.cpu_nodes.find(cpu);
      on_node = on_node || (it != host.cpu_nodes.end() && it->second == *p.numa_node);
    }
    if (!on_node) ++off_node;
  }
  if (p.numa_node && !host.cpu_nodes.empty()) p.irqs_off_node = off_node;
  p.cpus.assign(all_cpus.begin(), all_cpus.end());
  return p;
}

Result<QueueSteering> ReadQueueSteering(const AttributeDir& interface_dir) {
  QueueSteering q;
  auto queues = ListNetQueues(interface_dir);
  if (queues.absent()) return q;
  if (!queues.ok()) return Unexpected{queues.error()};
  q.rx_queues = static_cast<int>(queues->rx.size());
  q.tx_queues = static_cast<int>(queues->tx.size());
  for (auto [names, file, out] : {std::tuple{&queues->rx, "rps_cpus", &q.rps_queues},
                                  {&queues->tx, "xps_cpus", &q.xps_queues}}) {
    for (const auto& queue : *names) {
      auto cpus = ReadNetQueueCpus(interface_dir, queue, file);
      if (!cpus.ok()) return Unexpected{cpus.error()};
      if (!*cpus) continue;
      if (!*out) *out = 0;
      if (!(*cpus)->empty()) ++**out;
    }
  }
  return q;
}

Result<std::optional<GovernorFact>> ReadGovernor(const SysRoot& root, const std::vector<int>& cpus,
                                                 ReceivePathHost& host) {
  std::map<std::string, int> counts;
  for (int cpu : cpus) {
    auto known = host.governors.find(cpu);
    if (known == host.governors.end()) {
      auto g = ReadCpuGovernor(root, cpu);
      if (!g.ok()) return Unexpected{g.error()};
      known = host.governors.emplace(cpu, *g).first;
    }
    if (known->second) ++counts[*known->second];
  }
  if (counts.empty()) return std::optional<GovernorFact>();
  auto best = std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) {
    return a.second < b.second;  // max_element keeps the first of equals.
  });
  return std::optional<GovernorFact>(GovernorFact{best->first, GovernorCode(best->first)});
}

void EmitIrqPlacement(const IrqPlacement& p, const LabelPairs& with_role, MetricSink& sink) {
  if (p.numa_node) {
    sink.Gauge("fabric_netdev_numa_node",
               "NUMA node of the NIC's PCI function (device/numa_node); no series without NUMA.",
               with_role, *p.numa_node);
  }
  if (p.irqs > 0) {
    sink.Gauge("fabric_netdev_irqs",
               "MSI/MSI-X interrupts of the NIC's PCI function (device/msi_irqs): its queue "
               "interrupts and a few for control.",
               with_role, p.irqs);
  }
  if (p.irqs_off_node) {
    sink.Gauge("fabric_netdev_irqs_off_node",
               "Interrupts of the NIC whose CPU affinity (/proc/irq/N/smp_affinity_list) has no "
               "CPU on the NIC's NUMA node: their packets cross the socket interconnect before "
               "any CPU touches them. A likely cause when one node's receive path lags its peers.",
               with_role, *p.irqs_off_node);
  }
}

void EmitQueueSteering(const QueueSteering& q, const LabelPairs& with_role, MetricSink& sink) {
  for (auto [direction, count, steered] :
       {std::tuple{"rx", q.rx_queues, q.rps_queues}, {"tx", q.tx_queues, q.xps_queues}}) {
    if (count == 0) continue;
    LabelPairs labels = with_role;
    labels.emplace_back("direction", direction);
    sink.Gauge("fabric_netdev_queues",
               "Receive and transmit queues the kernel has for the interface (queues/rx-N, tx-N).",
               labels, count);
    if (steered) {
      sink.Gauge("fabric_netdev_steered_queues",
                 "Queues with a software steering mask set: RPS (rx-N/rps_cpus) for receive, XPS "
                 "(tx-N/xps_cpus) for transmit. RPS moves protocol processing off the "
                 "interrupted CPU, at a cost per packet.",
                 labels, *steered);
    }
  }
}

void EmitGovernor(const GovernorFact& g, const LabelPairs& with_role, MetricSink& sink) {
  LabelPairs labels = with_role;
  labels.emplace_back("governor", g.governor);
  sink.Gauge("fabric_netdev_cpu_governor",
             "cpufreq governor most CPUs serving the NIC run under (the CPUs its interrupts are "
             "affined to, else its NUMA node's), as a code: 1 performance, 2 powersave, 3 "
             "schedutil, 4 ondemand, 5 conservative, 6 userspace, 7 other; the name is the "
             "governor label. Slow frequency ramps add receive latency under bursts.",
             std::move(labels), g.code);
}

}  // namespace fabric
