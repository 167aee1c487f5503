#include "exporter/collectors/softnet_collector.h"

#include <string>

#include "common/parse/softnet_parse.h"
#include "common/read/file_reader.h"

namespace fabric {
namespace {

class SoftnetCollector : public Collector {
 public:
  explicit SoftnetCollector(const SysRoot& root) : path_(root.Proc("net/softnet_stat")) {}

  Status Collect(MetricSink& sink) override {
    auto text = ReadTable(path_);
    if (text.absent()) return OkStatus();
    if (!text.ok()) return Unexpected{text.error()};
    auto cpus = ParseSoftnetStat(*text, path_);
    if (!cpus.ok()) return Unexpected{cpus.error()};
    for (const auto& cpu : *cpus) {
      std::string id = std::to_string(cpu.cpu);
      sink.Counter("fabric_softnet_processed_total",
                   "Packets this CPU took off its input queues (softnet_stat column 1).",
                   {{"cpu", id}}, cpu.processed);
      sink.Counter("fabric_softnet_dropped_total",
                   "Packets dropped because this CPU's input backlog was full "
                   "(net.core.netdev_max_backlog).",
                   {{"cpu", id}}, cpu.dropped);
      sink.Counter("fabric_softnet_time_squeeze_total",
                   "Times net_rx_action stopped with work left because the budget "
                   "(net.core.netdev_budget packets or netdev_budget_usecs) ran out; a rising "
                   "rate is receive-path backpressure.",
                   {{"cpu", id}}, cpu.time_squeeze);
      if (cpu.received_rps) {
        sink.Counter("fabric_softnet_received_rps_total",
                     "Inter-processor interrupts this CPU received to process packets steered "
                     "to it by RPS/RFS.",
                     {{"cpu", id}}, *cpu.received_rps);
      }
      if (cpu.flow_limit_count) {
        sink.Counter("fabric_softnet_flow_limit_count_total",
                     "Packets dropped by the per-flow backlog limit (net.core.flow_limit_*).",
                     {{"cpu", id}}, *cpu.flow_limit_count);
      }
      if (cpu.backlog_len) {
        sink.Gauge("fabric_softnet_backlog_packets",
                   "Packets waiting in this CPU's input and process queues when read.",
                   {{"cpu", id}}, *cpu.backlog_len);
      }
    }
    return OkStatus();
  }

 private:
  std::string path_;
};

}  // namespace

std::unique_ptr<Collector> MakeSoftnetCollector(const CollectorContext& context) {
  return std::make_unique<SoftnetCollector>(context.root);
}

}  // namespace fabric
