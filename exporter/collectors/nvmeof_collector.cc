#include "exporter/collectors/nvmeof_collector.h"

#include <cctype>
#include <string>
#include <utility>

#include "common/parse/block_stat_parse.h"
#include "common/parse/nvme_address_parse.h"
#include "common/read/file_reader.h"
#include "exporter/collectors/device_errors.h"

namespace fabric {
namespace {

// A namespace of controller nvmeX: "nvmeXnY" (no native multipath) or the
// per-path "nvmeZcXnY" (native multipath: the I/O this controller carried).
bool IsNamespace(const std::string& name) {
  if (name.rfind("nvme", 0) != 0) return false;
  bool digits = false;
  bool seen_n = false;
  for (size_t i = 4; i < name.size(); ++i) {
    char c = name[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digits = true;
    } else if ((c == 'c' || c == 'n') && digits) {
      if (c == 'n') seen_n = true;
      digits = false;
    } else {
      return false;
    }
  }
  return seen_n && digits;
}

class NvmeofCollector : public Collector {
 public:
  explicit NvmeofCollector(const SysRoot& root) : class_dir_(root.Sys("class/nvme")) {}

  Status Collect(MetricSink& sink) override {
    errors_.BeginScrape();
    auto controllers = ListDirectory(class_dir_);
    if (controllers.absent()) return OkStatus();
    if (!controllers.ok()) return Unexpected{controllers.error()};
    for (const std::string& name : *controllers) Controller(sink, name);
    errors_.Emit(sink);
    return OkStatus();
  }

 private:
  void Controller(MetricSink& sink, const std::string& name) {
    const std::string path = class_dir_ + "/" + name;
    AttributeDir dir(path);
    auto transport = dir.Read("transport");
    if (!errors_.Check(name, "transport", transport)) return;
    if (*transport == "pcie") return;  // Local: not a fabric.
    auto address = dir.Read("address");
    if (!errors_.Check(name, "address", address)) return;
    auto parsed = ParseNvmeAddress(*address, path + "/address");
    if (!errors_.Check(name, "address", parsed)) return;
    auto state = dir.Read("state");
    auto nqn = dir.Read("subsysnqn");
    LabelPairs labels = {
        {"controller", name}, {"target", parsed->traddr}, {"transport", *transport}};
    LabelPairs info = labels;
    info.emplace_back("trsvcid", parsed->trsvcid);
    info.emplace_back("subsysnqn", nqn.ok() ? *nqn : "");
    info.emplace_back("state", state.ok() ? *state : "");
    sink.Info("fabric_nvmeof_controller_info",
              "An NVMe over Fabrics controller (/sys/class/nvme): transport, target address "
              "(traddr) and service id, subsystem NQN and state (live, connecting, resetting, "
              "deleting).",
              info);
    if (state.ok()) {
      sink.Gauge("fabric_nvmeof_controller_live",
                 "1 while the controller's state is live (connected and serving I/O), else 0.",
                 labels, *state == "live" ? 1 : 0);
    }
    auto entries = ListDirectory(path);
    if (!errors_.Check(name, "namespaces", entries)) return;
    BlockStat sum;
    int namespaces = 0;
    for (const std::string& entry : *entries) {
      if (!IsNamespace(entry)) continue;
      auto text = dir.ReadTable(entry + "/stat", 4096);
      if (!errors_.Check(name, "namespace_stat", text)) return;
      auto stat = ParseBlockStat(*text, path + "/" + entry + "/stat");
      if (!errors_.Check(name, "namespace_stat", stat)) return;
      sum.read_ios += stat->read_ios;
      sum.read_sectors += stat->read_sectors;
      sum.write_ios += stat->write_ios;
      sum.write_sectors += stat->write_sectors;
      sum.io_ticks_ms += stat->io_ticks_ms;
      ++namespaces;
    }
    sink.Gauge("fabric_nvmeof_namespaces", "Namespaces (block devices) of the controller.", labels,
               namespaces);
    if (namespaces == 0) return;
    auto counter = [&](std::string_view metric, std::string_view help, double value) {
      sink.Counter(metric, help, labels, value);
    };
    counter("fabric_nvmeof_read_bytes_total",
            "Bytes read from the target through this controller: its namespaces' read sectors "
            "times 512 (with native multipath, the per-path nvmeZcXnY devices).",
            static_cast<double>(sum.read_sectors * kBlockSectorBytes));
    counter("fabric_nvmeof_write_bytes_total",
            "Bytes written to the target through this controller (write sectors times 512).",
            static_cast<double>(sum.write_sectors * kBlockSectorBytes));
    counter("fabric_nvmeof_reads_total", "Read I/Os completed through this controller.",
            static_cast<double>(sum.read_ios));
    counter("fabric_nvmeof_writes_total", "Write I/Os completed through this controller.",
            static_cast<double>(sum.write_ios));
    counter("fabric_nvmeof_busy_seconds_total",
            "Time the controller's namespaces had I/O in flight (io_ticks), summed over them.",
            static_cast<double>(sum.io_ticks_ms) * 1e-3);
  }

  std::string class_dir_;
  DeviceErrors errors_{"nvmeof"};
};

}  // namespace

std::unique_ptr<Collector> MakeNvmeofCollector(const CollectorContext& context) {
  return std::make_unique<NvmeofCollector>(context.root);
}

}  // namespace fabric
