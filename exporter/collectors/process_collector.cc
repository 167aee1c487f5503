#include "exporter/collectors/process_collector.h"

#include <utility>

#include "common/kernel/process_self.h"

namespace fabric {
namespace {

class ProcessCollector : public Collector {
 public:
  explicit ProcessCollector(SysRoot root) : root_(std::move(root)) {}

  Status Collect(MetricSink& sink) override {
    auto self = ReadProcessSelf(root_);
    if (!self.ok()) return Unexpected{self.error()};
    sink.Counter("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
                 {}, self->cpu_seconds);
    sink.Gauge("process_resident_memory_bytes", "Resident memory size in bytes.", {},
               static_cast<double>(self->resident_bytes));
    sink.Gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.", {},
               static_cast<double>(self->virtual_bytes));
    sink.Gauge("process_open_fds", "Number of open file descriptors.", {},
               static_cast<double>(self->open_fds));
    if (self->max_fds) {
      sink.Gauge("process_max_fds", "Maximum number of open file descriptors.", {},
                 static_cast<double>(*self->max_fds));
    }
    sink.Gauge("process_start_time_seconds",
               "Start time of the process since unix epoch in seconds.", {},
               self->start_time_seconds);
    return OkStatus();
  }

 private:
  SysRoot root_;
};

}  // namespace

std::unique_ptr<Collector> MakeProcessCollector(SysRoot root) {
  return std::make_unique<ProcessCollector>(std::move(root));
}

}  // namespace fabric
