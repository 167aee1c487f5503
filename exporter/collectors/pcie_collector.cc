#include "exporter/collectors/pcie_collector.h"

#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "common/log.h"
#include "common/parse/pcie_regs.h"
#include "common/strings.h"
#include "exporter/backends/ethtool_backend.h"
#include "exporter/backends/pci_config_space.h"
#include "exporter/collectors/device_errors.h"
#include "exporter/collectors/pcie_link_health.h"
#include "exporter/pcie/pcie_bandwidth.h"
#include "exporter/pcie/pcie_path.h"
#include "exporter/pcie/pcie_sysfs.h"

namespace fabric {
namespace {

// Network (incl. InfiniBand 0x0207), NVMe, display/3D controllers.
const std::vector<std::string> kDefaultClasses = {"0x02", "0x0108", "0x03"};

struct ClassPrefix {
  uint32_t value;
  int shift;  // Bits of the 24-bit class code below the prefix.
};

struct PcieSettings {
  std::vector<ClassPrefix> classes;
  bool config_space = true;
  std::string config_space_dump;
  std::string pci_ids_file;
  bool virtual_functions = false;
  bool aer_types = true;
  // The link sampler (pcie_link_sampler.h): live over a mounted sysfs,
  // recorded traces over a fixture tree (auto picks), or off.
  std::optional<PcieLinkSampler::Mode> link_sampler;
  double link_sample_interval_seconds = 0.5;
};

std::string Hex(uint32_t value, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*x", digits, value);
  return buf;
}

// A path in the config file is relative to the file's directory.
std::string ResolvePath(const ConfigNode& settings, const std::string& path) {
  if (path.empty() || path.front() == '/' || settings.file().empty()) return path;
  return (std::filesystem::path(settings.file()).parent_path() / path).string();
}

PcieSettings ParseSettings(const ConfigNode& settings) {
  PcieSettings s;
  auto classes = settings.StringList("classes").value_or(kDefaultClasses);
  for (const auto& text : classes) {
    std::string_view digits = text;
    bool ok = StartsWith(digits, "0x");
    if (ok) digits.remove_prefix(2);
    ok = ok && (digits.size() == 2 || digits.size() == 4 || digits.size() == 6);
    auto value = ok ? ParseUint64(digits, 16) : std::nullopt;
    if (!value) {
      settings.Fail("classes", "expected class prefixes like \"0x02\", \"0x0108\" or " +
                                   std::string("\"0x010802\", got ") + Quote(text));
    }
    s.classes.push_back({static_cast<uint32_t>(*value), 24 - 4 * static_cast<int>(digits.size())});
  }
  s.config_space = settings.Bool("config_space").value_or(true);
  s.config_space_dump = ResolvePath(settings, settings.String("config_space_dump").value_or(""));
  s.pci_ids_file = ResolvePath(settings, settings.String("pci_ids_file").value_or(""));
  s.virtual_functions = settings.Bool("virtual_functions").value_or(false);
  s.aer_types = settings.Bool("aer_types").value_or(true);
  s.link_sample_interval_seconds =
      settings.Double("link_sample_interval_seconds", 0.01, 60).value_or(0.5);
  return s;
}

std::optional<PcieLinkSampler::Mode> SamplerMode(const ConfigNode& settings, const SysRoot& root) {
  std::string mode = settings.String("link_sampler").value_or("auto");
  if (mode == "auto") {
    return IsMountedSysfs(root.sysfs()) ? PcieLinkSampler::Mode::kLive
                                        : PcieLinkSampler::Mode::kRecorded;
  }
  if (mode == "live") return PcieLinkSampler::Mode::kLive;
  if (mode == "recorded") return PcieLinkSampler::Mode::kRecorded;
  if (mode != "off") {
    settings.Fail("link_sampler", "expected auto, live, recorded or off, got " + Quote(mode));
  }
  return std::nullopt;
}

constexpr char kHelpInfo[] =
    "One series per PCI device on the path of a NIC, GPU or NVMe drive to its root port: "
    "identity (ids and pci.ids names), parent device, driver, NUMA node, bound netdevs and RDMA "
    "devices, port type, and where its link data came from (config space or sysfs).";
constexpr char kHelpNetdev[] =
    "A network interface bound to a PCI device (or to a virtio device on it), for joining "
    "interface metrics (line rate) to PCIe path metrics on `address`.";
constexpr char kHelpDowntrained[] =
    "1 if this link runs below what both ends support, in speed or in width (dimension). Width "
    "is a fault (a bad slot, riser or card); speed also drops when a GPU idles to save power.";
constexpr char kHelpRdma[] = "An RDMA device bound to a PCI device, for joins on `address`.";

class PcieCollector : public Collector {
 public:
  PcieCollector(const SysRoot& root, PcieSettings settings, std::unique_ptr<PciConfigSpace> config)
      : root_(root), settings_(std::move(settings)), config_(std::move(config)) {
    if (settings_.link_sampler) {
      sampler_ = std::make_unique<PcieLinkSampler>(
          root_, *settings_.link_sampler,
          std::chrono::milliseconds(
              static_cast<int64_t>(settings_.link_sample_interval_seconds * 1000)));
    }
  }

  // A device whose attributes cannot be read is left out (with its path:
  // an analysis without one of its links would name the wrong bottleneck);
  // the others stay, and fabric_collector_device_errors names it. A garbage
  // AER or ASPM file drops only that family of the device.
  Status Collect(MetricSink& sink) override {
    std::map<std::string, Error> list_errors;
    auto devices = ListPciDevices(root_, &list_errors);
    if (devices.absent()) return OkStatus();
    if (!devices.ok()) return Unexpected{devices.error()};
    errors_.BeginScrape();
    std::set<std::string> failed;
    for (const auto& [address, error] : list_errors) {
      errors_.Record(address, "sysfs", error);
      failed.insert(address);
    }
    EmitPolicy(sink);

    std::vector<std::string> endpoints;
    std::set<std::string> selected;
    for (const auto& [address, entry] : *devices) {
      if (!Matches(entry)) continue;
      endpoints.push_back(address);
      // The endpoint and every port up to the root bus.
      for (const PciDeviceEntry* e = &entry; e != nullptr;) {
        if (!selected.insert(e->address).second) break;
        auto parent = devices->find(e->parent);
        e = parent == devices->end() ? nullptr : &parent->second;
      }
    }
    if (selected.empty()) {
      errors_.Emit(sink);
      return OkStatus();
    }

    std::map<std::string, ExpressRegisters> regs;
    auto read = config_->ReadExpress({selected.begin(), selected.end()});
    if (read.ok()) {
      regs = std::move(*read);
      config_failing_ = false;
    } else if (!config_failing_) {
      // Config space is the better source, not the only one: fall back to
      // sysfs rather than lose every link. Logged once per failure spell.
      log::Warn("pcie: config space unreadable, using sysfs link attributes",
                {{"err", read.error().message}});
      config_failing_ = true;
    }
    auto netdevs = ReadBoundNames(root_, "class/net");
    if (!netdevs.ok()) return Unexpected{netdevs.error()};
    auto rdma = ReadBoundNames(root_, "class/infiniband");
    if (!rdma.ok()) return Unexpected{rdma.error()};

    std::map<std::string, PcieNode> nodes;
    for (const auto& address : selected) {
      const PciDeviceEntry& entry = devices->at(address);
      auto details = ReadPciDeviceDetails(root_, address);
      if (details.absent()) continue;  // Removed while we read it.
      if (!details.ok()) {
        errors_.Record(address, "sysfs", details.error());
        failed.insert(address);
        continue;
      }
      PcieNode node{address, entry.parent, details->link, std::nullopt};
      std::optional<ExpressInfo> express;
      if (auto it = regs.find(address); it != regs.end()) {
        express = DecodeExpress(it->second);
        node.port_type = express->port_type;
        // Config space first; sysfs fills what it cannot decode (a speed
        // code newer than this build knows, say).
        const PcieLinkValues& fs = details->link;
        node.link = PcieLinkValues{
            express->current_speed_gts ? express->current_speed_gts : fs.current_speed_gts,
            express->current_width ? express->current_width : fs.current_width,
            express->max_speed_gts ? express->max_speed_gts : fs.max_speed_gts,
            express->max_width ? express->max_width : fs.max_width};
      }
      EmitDevice(entry, *details, express, node.link, Lookup(*netdevs, address),
                 Lookup(*rdma, address), sink);
      // AER and ASPM fail on their own: a garbage counter drops that family
      // of this device and is named in the error series; its link and path
      // stay (not in `failed`).
      if (auto aer = ReadPciAer(root_, address); errors_.Check(address, "aer", aer)) {
        EmitAer(address, *aer, sink);
      }
      if (auto aspm = ReadPciLinkAspm(root_, address); errors_.Check(address, "aspm", aspm)) {
        EmitLinkAspm(address, *aspm, sink);
      }
      nodes.emplace(address, std::move(node));
    }
    for (const auto& address : endpoints) {
      for (const auto& name : Lookup(*netdevs, address)) {
        sink.Info("fabric_pcie_netdev_info", kHelpNetdev, {{"address", address}, {"device", name}});
      }
      for (const auto& name : Lookup(*rdma, address)) {
        sink.Info("fabric_pcie_rdma_device_info", kHelpRdma,
                  {{"address", address}, {"device", name}});
      }
    }
    std::vector<std::string> analysed;
    for (const auto& address : endpoints) {
      if (!OnFailedPath(address, *devices, failed)) analysed.push_back(address);
    }
    EmitPaths(AnalysePciePaths(nodes, analysed), sink);
    SampleLinks(endpoints, nodes, sink);
    errors_.Emit(sink);
    return OkStatus();
  }

 private:
  static bool OnFailedPath(const std::string& endpoint,
                           const std::map<std::string, PciDeviceEntry>& devices,
                           const std::set<std::string>& failed) {
    for (auto it = devices.find(endpoint); it != devices.end();
         it = devices.find(it->second.parent)) {
      if (failed.count(it->first)) return true;
    }
    return failed.count(endpoint) > 0;
  }

  void EmitPolicy(MetricSink& sink) {
    auto policy = ReadAspmPolicy(root_);
    if (policy.ok()) {
      EmitAspmPolicy(*policy, sink);
    } else if (!policy.absent()) {
      errors_.Record("host", "aspm_policy", policy.error());
    }
  }

  // Hands the endpoints (with what each link can train to) to the sampler and
  // writes what it counted.
  void SampleLinks(const std::vector<std::string>& endpoints,
                   const std::map<std::string, PcieNode>& nodes, MetricSink& sink) {
    if (!sampler_) return;
    std::map<std::string, PcieLinkCapability> targets;
    for (const auto& address : endpoints) {
      auto node = nodes.find(address);
      if (node == nodes.end()) continue;
      PcieLinkCapability capable{node->second.link.max_speed_gts, node->second.link.max_width};
      if (auto up = nodes.find(node->second.parent); up != nodes.end()) {
        const PcieLinkValues& u = up->second.link;
        if (u.max_speed_gts && capable.speed_gts) {
          capable.speed_gts = std::min(*capable.speed_gts, *u.max_speed_gts);
        }
        if (u.max_width && capable.width) capable.width = std::min(*capable.width, *u.max_width);
      }
      targets.emplace(address, capable);
    }
    sampler_->SetTargets(targets);
    EmitLinkCounts(sampler_->Counts(), sink);
  }

  bool Matches(const PciDeviceEntry& e) const {
    if (e.virtual_function && !settings_.virtual_functions) return false;
    for (const auto& c : settings_.classes) {
      if ((e.class_code >> c.shift) == c.value) return true;
    }
    return false;
  }

  static std::vector<std::string> Lookup(const std::map<std::string, std::vector<std::string>>& m,
                                         const std::string& address) {
    auto it = m.find(address);
    return it == m.end() ? std::vector<std::string>() : it->second;
  }

  static std::string Join(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
    return out;
  }

  void EmitDevice(const PciDeviceEntry& entry, const PciDeviceDetails& d,
                  const std::optional<ExpressInfo>& express, const PcieLinkValues& link,
                  const std::vector<std::string>& netdevs, const std::vector<std::string>& rdma,
                  MetricSink& sink) {
    const std::string& a = entry.address;
    PciNames names;
    if (d.vendor && d.device) {
      names = config_->Names(static_cast<uint16_t>(*d.vendor), static_cast<uint16_t>(*d.device),
                             entry.class_code);
    }
    auto id = [](const std::optional<uint32_t>& v) { return v ? Hex(*v, 4) : std::string(); };
    std::string source = express ? "config" : link.any() ? "sysfs" : "none";
    LabelPairs labels = {
        {"address", a},
        {"parent", entry.parent},
        {"class_id", Hex(entry.class_code, 6)},
        {"class_name", names.class_name},
        {"vendor_id", id(d.vendor)},
        {"device_id", id(d.device)},
        {"subsystem_vendor_id", id(d.subsystem_vendor)},
        {"subsystem_device_id", id(d.subsystem_device)},
        {"vendor_name", names.vendor},
        {"device_name", names.device},
        {"driver", d.driver},
        {"numa_node", d.numa_node},
        {"netdevs", Join(netdevs)},
        {"rdma_devices", Join(rdma)},
        {"port_type", express ? std::string(PortTypeName(express->port_type)) : ""},
        {"slot", express && express->physical_slot ? std::to_string(*express->physical_slot) : ""},
        {"link_source", source},
        {"role", Matches(entry) ? "endpoint" : "port"},
    };
    sink.Info("fabric_pcie_device_info", kHelpInfo, std::move(labels));

    if (link.current_speed_gts) {
      sink.Gauge("fabric_pcie_link_current_speed_transfers_per_second",
                 "Speed the device's PCIe link trained to (LnkSta), in transfers per second per "
                 "lane. A bridge's value is its downstream link.",
                 {{"address", a}}, *link.current_speed_gts * 1e9);
    }
    if (link.max_speed_gts) {
      sink.Gauge("fabric_pcie_link_max_speed_transfers_per_second",
                 "Fastest speed this device's PCIe port supports (LnkCap2, else LnkCap).",
                 {{"address", a}}, *link.max_speed_gts * 1e9);
    }
    if (link.current_width) {
      sink.Gauge("fabric_pcie_link_current_width_lanes",
                 "Lanes the device's PCIe link trained to (LnkSta).", {{"address", a}},
                 *link.current_width);
    }
    if (link.max_width) {
      sink.Gauge("fabric_pcie_link_max_width_lanes",
                 "Widest link this device's PCIe port supports (LnkCap); a root port hardwired "
                 "x4 says 4 here even in an x16-sized slot.",
                 {{"address", a}}, *link.max_width);
    }
    if (link.current_speed_gts && link.current_width) {
      sink.Gauge("fabric_pcie_link_current_bandwidth_bytes_per_second",
                 "Usable bandwidth of the trained link, one direction: speed x width x encoding "
                 "(8b/10b, 128b/130b or 242B/256B FLIT), before TLP overhead.",
                 {{"address", a}},
                 PcieLinkBytesPerSecond(*link.current_speed_gts, *link.current_width));
    }
    if (link.max_speed_gts && link.max_width) {
      sink.Gauge("fabric_pcie_link_max_bandwidth_bytes_per_second",
                 "Usable bandwidth this device's port could carry at its own maximum speed and "
                 "width, one direction.",
                 {{"address", a}}, PcieLinkBytesPerSecond(*link.max_speed_gts, *link.max_width));
    }
    if (express && express->slot_power_limit_watts) {
      sink.Gauge("fabric_pcie_slot_power_limit_watts",
                 "Slot power limit this downstream port advertises (SltCap), from config space.",
                 {{"address", a}}, *express->slot_power_limit_watts);
    }
  }

  void EmitAer(const std::string& a, const PciAer& d, MetricSink& sink) {
    for (size_t i = 0; i < kAerSeverities.size(); ++i) {
      const char* severity = kAerSeverities[i];
      if (const auto& aer = d.dev[i]) {
        if (aer->total) {
          sink.Counter("fabric_pcie_aer_errors_total",
                       "PCIe Advanced Error Reporting errors this device logged, by severity "
                       "(correctable errors are retried by the link layer but cost bandwidth; "
                       "a rising rate often precedes a downtrained link).",
                       {{"address", a}, {"severity", severity}}, *aer->total);
        }
        if (settings_.aer_types) {
          for (const auto& [type, count] : aer->by_type) {
            sink.Counter("fabric_pcie_aer_errors_by_type_total",
                         "PCIe AER errors this device logged, by severity and error type as the "
                         "kernel names it (RxErr, BadTLP, BadDLLP, Timeout, CmpltTO, ...).",
                         {{"address", a}, {"severity", severity}, {"type", type}}, count);
          }
        }
      }
      if (const auto& total = d.rootport[i]) {
        sink.Counter("fabric_pcie_aer_rootport_errors_total",
                     "AER error messages this root port received from devices below it, by "
                     "severity.",
                     {{"address", a}, {"severity", severity}}, *total);
      }
    }
  }

  static void EmitPaths(const PcieTopologyAnalysis& analysis, MetricSink& sink) {
    for (const auto& [key, hop] : analysis.hops) {
      LabelPairs labels = {{"address", hop.address}, {"upstream", hop.upstream}};
      if (hop.current_bytes_per_second) {
        sink.Gauge("fabric_pcie_hop_current_bandwidth_bytes_per_second",
                   "Usable bandwidth of one PCIe link as trained; `address` is its downstream "
                   "end, `upstream` the port above it (empty when not visible, as in a VM).",
                   labels, *hop.current_bytes_per_second);
      }
      if (hop.capable_bytes_per_second) {
        sink.Gauge("fabric_pcie_hop_capable_bandwidth_bytes_per_second",
                   "Usable bandwidth this link would have trained at min(upstream max, "
                   "downstream max) speed and width.",
                   labels, *hop.capable_bytes_per_second);
      }
      if (hop.current_speed_gts && hop.capable_speed_gts) {
        auto l = labels;
        l.emplace_back("dimension", "speed");
        sink.Gauge("fabric_pcie_hop_downtrained", kHelpDowntrained, std::move(l),
                   hop.speed_downtrained ? 1 : 0);
      }
      if (hop.current_width && hop.capable_width) {
        auto l = labels;
        l.emplace_back("dimension", "width");
        sink.Gauge("fabric_pcie_hop_downtrained", kHelpDowntrained, std::move(l),
                   hop.width_downtrained ? 1 : 0);
      }
    }
    for (const auto& path : analysis.paths) {
      LabelPairs labels = {{"address", path.endpoint}};
      sink.Gauge("fabric_pcie_path_hops",
                 "PCIe links between this device and its root port (2 or more: a switch).", labels,
                 static_cast<double>(path.hops.size()));
      if (path.hops.empty()) continue;  // Conventional PCI: no PCIe path to describe.
      if (path.current_bytes_per_second) {
        sink.Gauge("fabric_pcie_path_current_bandwidth_bytes_per_second",
                   "The PCIe ceiling of this device now: usable bandwidth of the narrowest "
                   "trained link between it and its root port. Compare with the NIC's line rate "
                   "(200 GbE needs 25e9).",
                   labels, *path.current_bytes_per_second);
        sink.Info("fabric_pcie_path_bottleneck_info",
                  "The link with the least current bandwidth on this device's path: `hop` is "
                  "its downstream end, `upstream` the port above it.",
                  {{"address", path.endpoint},
                   {"hop", path.bottleneck},
                   {"upstream", analysis.hops.at(path.bottleneck).upstream}});
      }
      if (path.capable_bytes_per_second) {
        sink.Gauge("fabric_pcie_path_capable_bandwidth_bytes_per_second",
                   "The PCIe ceiling this device would have if every link on its path trained "
                   "to what both its ends support; below the NIC's line rate, re-seating will "
                   "not help, a different slot will.",
                   labels, *path.capable_bytes_per_second);
      }
      if (path.capable_width) {
        sink.Gauge("fabric_pcie_path_capable_width_lanes",
                   "Narrowest width any link on this device's path can train to.", labels,
                   *path.capable_width);
      }
      sink.Gauge("fabric_pcie_path_downtrained_hops",
                 "Links on this device's path running below what both their ends support "
                 "(see fabric_pcie_hop_downtrained for which and how).",
                 labels, path.downtrained_hops);
      sink.Gauge("fabric_pcie_path_slot_limited",
                 "1 if a link on this device's path cannot be as wide as the device itself: an "
                 "x16 card in a slot or root port wired x4 or x8 (field shape 14). A Gen5 card "
                 "on a Gen4 port is not slot-limited.",
                 labels, path.slot_limited ? 1 : 0);
    }
  }

  SysRoot root_;
  PcieSettings settings_;
  std::unique_ptr<PciConfigSpace> config_;
  bool config_failing_ = false;
  DeviceErrors errors_{"pcie"};
  std::unique_ptr<PcieLinkSampler> sampler_;
};

}  // namespace

std::unique_ptr<Collector> MakePcieCollector(const CollectorContext& context) {
  PcieSettings settings = ParseSettings(context.settings);
  settings.link_sampler = SamplerMode(context.settings, context.root);
  std::unique_ptr<PciConfigSpace> config;
  if (settings.config_space) {
    config = settings.config_space_dump.empty()
                 ? MakeLibpciSysfs(context.root.Sys("bus/pci"), settings.pci_ids_file)
                 : MakeLibpciDump(settings.config_space_dump, settings.pci_ids_file);
    if (config == nullptr) {
      bool asked = !settings.config_space_dump.empty() || !settings.pci_ids_file.empty();
      log::Write(asked ? log::Level::kWarn : log::Level::kInfo,
                 "pcie: built without libpci: no config space and no pci.ids names; link data "
                 "comes from sysfs");
    }
  }
  if (config == nullptr) config = MakeNoPciConfigSpace();
  return std::make_unique<PcieCollector>(context.root, std::move(settings), std::move(config));
}

}  // namespace fabric
