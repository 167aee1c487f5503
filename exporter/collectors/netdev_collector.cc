#include "exporter/collectors/netdev_collector.h"

#include <algorithm>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "common/kernel/net_class.h"
#include "common/kernel/numa.h"
#include "common/parse/sysfs_values.h"
#include "exporter/backends/ethtool_backend.h"
#include "exporter/collectors/device_errors.h"
#include "exporter/collectors/driver_stat_plan.h"
#include "exporter/collectors/netdev_ethtool.h"
#include "exporter/collectors/netdev_sysfs.h"
#include "exporter/collectors/nic_roles.h"
#include "exporter/collectors/receive_path.h"

namespace fabric {
namespace {

enum class EthtoolSource { kKernel, kFixture, kNone };

struct NetdevSettings {
  std::vector<std::string> interfaces;
  std::optional<std::regex> device_include;
  std::optional<std::regex> device_exclude;
  std::optional<std::regex> driver_stats_include;
  bool queue_stats = false;
  NicRoleSettings roles;
  EthtoolSource ethtool_source = EthtoolSource::kNone;
};

// Every interface is read source by source (sysfs link attributes,
// statistics/, each ethtool request, interrupt placement, queues, cpufreq);
// a broken source leaves out that interface's families from it, recorded in
// DeviceErrors, and the scrape goes on. Only a class/net that cannot be
// listed fails the collector.
class NetdevCollector : public Collector {
 public:
  NetdevCollector(const SysRoot& root, const Fleet* fleet, NetdevSettings settings)
      : root_(root),
        fleet_(fleet),
        settings_(std::move(settings)),
        plans_(settings_.queue_stats, settings_.driver_stats_include) {
    if (settings_.ethtool_source == EthtoolSource::kKernel) {
      ethtool_ = MakeKernelEthtoolBackend();
    } else if (settings_.ethtool_source == EthtoolSource::kFixture) {
      ethtool_ = MakeFixtureEthtoolBackend(root_);
    }
  }

  Status Collect(MetricSink& sink) override {
    auto names = ListNetInterfaces(root_);
    if (names.absent()) return OkStatus();
    if (!names.ok()) return Unexpected{names.error()};
    errors_.BeginScrape();
    plans_.Retain(*names);
    NicRoles from_config;
    auto resolved = ResolveNicRoles(root_, fleet_, settings_.roles, from_config);
    if (!resolved.ok()) errors_.Record("host", "routes", resolved.error());
    const NicRoles& roles = resolved.ok() ? *resolved : from_config;
    ReceivePathHost host;
    if (auto nodes = CpuNumaNodes(root_); nodes.ok()) {
      host.cpu_nodes = std::move(*nodes);
    } else if (!nodes.absent()) {
      errors_.Record("host", "numa", nodes.error());
    }
    for (const auto& name : *names) {
      if (settings_.device_exclude && std::regex_search(name, *settings_.device_exclude)) {
        continue;
      }
      const AttributeDir dir = NetInterfaceDir(root_, name);
      std::string pci_from_link;
      if (!Selected(name, dir, pci_from_link)) continue;
      CollectInterface(name, dir, pci_from_link, roles, host, sink);
    }
    errors_.Emit(sink);
    return OkStatus();
  }

 private:
  // Physical interfaces have a `device` link in sysfs; its target names the
  // PCI function (read as text, so a captured tree's link need not resolve).
  // `name` passed device_exclude already.
  bool Selected(const std::string& name, const AttributeDir& dir,
                std::string& pci_from_link) const {
    auto link = dir.ReadLink("device");
    if (link.ok()) {
      pci_from_link = PciAddressInPath(*link);
      return true;
    }
    for (const auto& n : settings_.interfaces) {
      if (n == name) return true;
    }
    return settings_.device_include && std::regex_search(name, *settings_.device_include);
  }

  // Runs one ethtool request; an absent answer is nullopt, an error is
  // recorded against `source` and is nullopt too.
  template <typename T>
  std::optional<T> Ask(const std::string& ifname, const char* source, Result<T> got) {
    if (got.ok()) return std::move(*got);
    if (!got.absent()) errors_.Record(ifname, source, got.error());
    return std::nullopt;
  }

  void CollectInterface(const std::string& ifname, const AttributeDir& dir,
                        const std::string& pci_from_link, const NicRoles& roles,
                        ReceivePathHost& host, MetricSink& sink) {
    const LabelPairs dev = {{"device", ifname}};
    const std::string& role = roles.RoleOf(ifname);
    const LabelPairs with_role = {{"device", ifname}, {"role", role}};
    sink.Info("fabric_netdev_role_info",
              "What the interface is for: fabric, storage, management or other; source config "
              "(the fleet config or the netdev collector's settings name it) or route (a route to "
              "a fleet peer leaves by it: "
              "fabric; the default route's: management). Every interface series of the "
              "receive-path and link-health families carries the same role label.",
              {{"device", ifname}, {"role", role}, {"source", roles.SourceOf(ifname)}});
    auto link = ReadNetdevLink(dir);
    if (errors_.Check(ifname, "sysfs", link)) EmitNetdevLink(*link, dev, with_role, sink);
    auto statistics = ReadNetdevStatistics(dir);
    if (errors_.Check(ifname, "statistics", statistics)) {
      EmitNetdevStatistics(*statistics, dev, sink);
    }
    CollectReceivePath(ifname, dir, with_role, host, sink);
    if (!ethtool_) {
      EmitInfo(ifname, EthtoolDriverInfo{}, pci_from_link, sink);
      return;
    }
    auto got = ethtool_->DriverInfo(ifname);
    std::optional<EthtoolDriverInfo> info;
    if (got.ok()) {
      info = std::move(*got);
    } else if (got.absent()) {
      info = EthtoolDriverInfo{};
    } else {
      errors_.Record(ifname, "ethtool_driver", got.error());
    }
    if (info) EmitInfo(ifname, *info, pci_from_link, sink);
    if (auto v = Ask(ifname, "ethtool_pause", ethtool_->Pause(ifname))) {
      EmitPause(*v, with_role, sink);
    }
    if (auto v = Ask(ifname, "ethtool_channels", ethtool_->Channels(ifname))) {
      EmitChannels(*v, with_role, sink);
    }
    if (auto v = Ask(ifname, "ethtool_rings", ethtool_->Rings(ifname))) {
      EmitRings(*v, with_role, sink);
    }
    if (auto v = Ask(ifname, "ethtool_fec", ethtool_->Fec(ifname))) EmitFec(*v, with_role, sink);
    if (auto v = Ask(ifname, "ethtool_coalesce", ethtool_->Coalesce(ifname))) {
      EmitCoalesce(*v, with_role, sink);
    }
    if (auto v = Ask(ifname, "ethtool_features", ethtool_->Features(ifname))) {
      EmitFeatures(*v, with_role, sink);
    }
    if (info && !info->driver.empty()) {
      if (auto v = Ask(ifname, "ethtool_stats", ethtool_->Stats(ifname))) {
        plans_.Emit(ifname, info->driver, *v, sink);
      }
    }
  }

  void CollectReceivePath(const std::string& ifname, const AttributeDir& dir,
                          const LabelPairs& with_role, ReceivePathHost& host, MetricSink& sink) {
    auto irqs = ReadIrqPlacement(root_, ifname, dir, host);
    if (errors_.Check(ifname, "irq_affinity", irqs)) EmitIrqPlacement(*irqs, with_role, sink);
    auto queues = ReadQueueSteering(dir);
    if (errors_.Check(ifname, "queues", queues)) EmitQueueSteering(*queues, with_role, sink);
    // The CPUs that serve the NIC: where its interrupts go, else its node.
    std::vector<int> cpus;
    if (irqs.ok()) {
      cpus = irqs->cpus;
      if (cpus.empty() && irqs->numa_node) cpus = NodeCpus(host, *irqs->numa_node);
    }
    if (cpus.empty()) return;
    auto governor = ReadGovernor(root_, cpus, host);
    if (errors_.Check(ifname, "cpufreq", governor) && *governor) {
      EmitGovernor(**governor, with_role, sink);
    }
  }

  static void EmitInfo(const std::string& ifname, const EthtoolDriverInfo& info,
                       const std::string& pci_from_link, MetricSink& sink) {
    std::string pci = IsPciAddress(info.bus_info) ? info.bus_info : pci_from_link;
    sink.Info("fabric_netdev_info",
              "Interface identity: driver, driver and firmware versions (ETHTOOL_GDRVINFO) and the "
              "PCI function, which joins to the pcie collector's series on pci_address.",
              {{"device", ifname},
               {"driver", info.driver},
               {"driver_version", info.version},
               {"firmware_version", info.firmware_version},
               {"pci_address", pci}});
  }

  SysRoot root_;
  const Fleet* fleet_;
  NetdevSettings settings_;
  std::unique_ptr<EthtoolBackend> ethtool_;
  DriverStatPlans plans_;
  DeviceErrors errors_{"netdev"};
};

std::optional<std::regex> RegexSetting(const ConfigNode& settings, std::string_view key) {
  auto pattern = settings.String(key);
  if (!pattern || pattern->empty()) return std::nullopt;
  // libstdc++ compiles a regex recursively: thousands of nested groups
  // overflow the stack. Name filters need far less.
  constexpr size_t kMaxPatternBytes = 1024;
  if (pattern->size() > kMaxPatternBytes) {
    settings.Fail(key, "regular expression longer than " + std::to_string(kMaxPatternBytes) +
                           " bytes; a device or statistic name filter needs far less");
  }
  try {
    return std::regex(*pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    settings.Fail(key, "not a valid regular expression: " + std::string(e.what()));
  }
}

}  // namespace

std::unique_ptr<Collector> MakeNetdevCollector(const CollectorContext& context) {
  const ConfigNode& s = context.settings;
  NetdevSettings settings;
  settings.interfaces = s.StringList("interfaces").value_or(std::vector<std::string>{});
  settings.device_include = RegexSetting(s, "device_include");
  settings.device_exclude = RegexSetting(s, "device_exclude");
  settings.driver_stats_include = RegexSetting(s, "driver_stats_include");
  settings.queue_stats = s.Bool("queue_stats").value_or(false);
  settings.roles.storage_interfaces =
      s.StringList("storage_interfaces").value_or(std::vector<std::string>{});
  settings.roles.management_interfaces =
      s.StringList("management_interfaces").value_or(std::vector<std::string>{});
  std::string source = s.String("ethtool_source").value_or("auto");
  if (source == "auto") {
    settings.ethtool_source =
        IsMountedSysfs(context.root.sysfs()) ? EthtoolSource::kKernel : EthtoolSource::kFixture;
  } else if (source == "kernel") {
    settings.ethtool_source = EthtoolSource::kKernel;
  } else if (source == "fixture") {
    settings.ethtool_source = EthtoolSource::kFixture;
  } else if (source == "none") {
    settings.ethtool_source = EthtoolSource::kNone;
  } else {
    s.Fail("ethtool_source", "expected auto, kernel, fixture or none, got \"" + source + "\"");
  }
  return std::make_unique<NetdevCollector>(context.root, context.fleet, std::move(settings));
}

}  // namespace fabric
