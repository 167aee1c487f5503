#include "exporter/collectors/netdev_collector.h"

#include <algorithm>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "common/kernel/net_class.h"
#include "common/parse/driver_stats.h"
#include "common/parse/sysfs_values.h"
#include "common/strings.h"
#include "exporter/backends/ethtool_backend.h"

namespace fabric {
namespace {

struct InterfaceCounter {
  const char* file;  // Under class/net/<if>/statistics/.
  const char* metric;
  const char* help;
  const char* direction;  // nullptr for receive-only counters without the label.
};

// clang-format off
constexpr InterfaceCounter kInterfaceCounters[] = {
  {"rx_bytes", "fabric_netdev_bytes_total", "Bytes received/transmitted by the interface.", "rx"},
  {"tx_bytes", "fabric_netdev_bytes_total", "Bytes received/transmitted by the interface.", "tx"},
  {"rx_packets", "fabric_netdev_packets_total", "Packets received/transmitted by the interface.",
   "rx"},
  {"tx_packets", "fabric_netdev_packets_total", "Packets received/transmitted by the interface.",
   "tx"},
  {"rx_errors", "fabric_netdev_errors_total",
   "Receive/transmit errors the driver counted (the sum of its specific error counters).", "rx"},
  {"tx_errors", "fabric_netdev_errors_total",
   "Receive/transmit errors the driver counted (the sum of its specific error counters).", "tx"},
  {"rx_dropped", "fabric_netdev_dropped_total",
   "Packets dropped by the interface or its driver without an error (no buffer, filtered).",
   "rx"},
  {"tx_dropped", "fabric_netdev_dropped_total",
   "Packets dropped by the interface or its driver without an error (no buffer, filtered).",
   "tx"},
  {"rx_fifo_errors", "fabric_netdev_fifo_errors_total",
   "Receive/transmit FIFO overruns/underruns in the NIC.", "rx"},
  {"tx_fifo_errors", "fabric_netdev_fifo_errors_total",
   "Receive/transmit FIFO overruns/underruns in the NIC.", "tx"},
  {"rx_missed_errors", "fabric_netdev_missed_errors_total",
   "Packets the NIC missed because the host did not provide receive buffers in time.", nullptr},
  {"rx_crc_errors", "fabric_netdev_crc_errors_total",
   "Frames received with a bad CRC: a physical-link problem.", nullptr},
  {"rx_frame_errors", "fabric_netdev_frame_errors_total",
   "Frames received with alignment/framing errors.", nullptr},
  {"rx_length_errors", "fabric_netdev_length_errors_total",
   "Frames received with a bad length (runts, giants).", nullptr},
  {"rx_over_errors", "fabric_netdev_over_errors_total",
   "Receive ring buffer overflows reported by the driver.", nullptr},
  {"tx_carrier_errors", "fabric_netdev_carrier_errors_total",
   "Transmissions lost to carrier problems.", nullptr},
  {"multicast", "fabric_netdev_multicast_packets_total", "Multicast packets received.", nullptr},
};
// clang-format on

enum class EthtoolSource { kKernel, kFixture, kNone };

struct NetdevSettings {
  std::vector<std::string> interfaces;
  std::optional<std::regex> device_include;
  std::optional<std::regex> device_exclude;
  std::optional<std::regex> driver_stats_include;
  bool queue_stats = false;
  EthtoolSource ethtool_source = EthtoolSource::kNone;
};

class NetdevCollector : public Collector {
 public:
  NetdevCollector(const SysRoot& root, NetdevSettings settings)
      : root_(root), settings_(std::move(settings)) {
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
    // Plans of interfaces that went away go too (containers churn veths).
    std::erase_if(driver_stat_plans_, [&](const auto& plan) {
      return !std::binary_search(names->begin(), names->end(), plan.first);
    });
    for (const auto& name : *names) {
      if (settings_.device_exclude && std::regex_search(name, *settings_.device_exclude)) {
        continue;
      }
      const AttributeDir dir = NetInterfaceDir(root_, name);
      std::string pci_from_link;
      if (!Selected(name, dir, pci_from_link)) continue;
      FABRIC_RETURN_IF_ERROR(CollectInterface(name, dir, pci_from_link, sink));
    }
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

  Status CollectInterface(const std::string& ifname, const AttributeDir& dir,
                          const std::string& pci_from_link, MetricSink& sink) {
    const LabelPairs dev = {{"device", ifname}};
    FABRIC_RETURN_IF_ERROR(CollectLink(dir, dev, sink));
    const AttributeDir statistics = NetStatisticsDir(dir);
    for (const auto& c : kInterfaceCounters) {
      auto v = ReadNetInt(statistics, c.file);
      if (!v.ok()) return Unexpected{v.error()};
      if (!*v) continue;
      LabelPairs labels = dev;
      if (c.direction != nullptr) labels.emplace_back("direction", c.direction);
      sink.Counter(c.metric, c.help, labels, static_cast<double>(**v));
    }

    EthtoolDriverInfo info;
    if (ethtool_) {
      auto got = ethtool_->DriverInfo(ifname);
      if (!got.ok() && !got.absent()) return Unexpected{got.error()};
      if (got.ok()) info = *got;
    }
    std::string pci = IsPciAddress(info.bus_info) ? info.bus_info : pci_from_link;
    sink.Info("fabric_netdev_info",
              "Interface identity: driver, driver and firmware versions (ETHTOOL_GDRVINFO) and the "
              "PCI function, which joins to the pcie collector's series on pci_address.",
              {{"device", ifname},
               {"driver", info.driver},
               {"driver_version", info.version},
               {"firmware_version", info.firmware_version},
               {"pci_address", pci}});
    if (!ethtool_) return OkStatus();
    FABRIC_RETURN_IF_ERROR(CollectPause(ifname, dev, sink));
    FABRIC_RETURN_IF_ERROR(CollectLimits(ifname, dev, sink));
    if (!info.driver.empty()) FABRIC_RETURN_IF_ERROR(CollectDriverStats(ifname, info.driver, sink));
    return OkStatus();
  }

  Status CollectLink(const AttributeDir& dir, const LabelPairs& dev, MetricSink& sink) {
    auto mtu = ReadNetInt(dir, "mtu");
    if (!mtu.ok()) return Unexpected{mtu.error()};
    if (*mtu) {
      sink.Gauge("fabric_netdev_mtu_bytes",
                 "Interface MTU. A mismatch between the ends of a path breaks jumbo frames.", dev,
                 static_cast<double>(**mtu));
    }
    auto speed = ReadNetInt(dir, "speed");
    if (!speed.ok()) return Unexpected{speed.error()};
    // -1 (SPEED_UNKNOWN) when the driver does not know it: no series.
    if (*speed && **speed > 0) {
      sink.Gauge("fabric_netdev_speed_bytes",
                 "Negotiated link speed in bytes per second (sysfs speed, Mb/s x 125000): the top "
                 "rung of the ladder this node's throughput is measured against.",
                 dev, static_cast<double>(**speed) * 125000.0);
    }
    auto carrier_changes = ReadNetInt(dir, "carrier_changes");
    if (!carrier_changes.ok()) return Unexpected{carrier_changes.error()};
    if (*carrier_changes) {
      sink.Counter("fabric_netdev_carrier_changes_total",
                   "Times the link went up or down: a flapping link or a renegotiating port.", dev,
                   static_cast<double>(**carrier_changes));
    }
    auto carrier = ReadNetInt(dir, "carrier");
    if (!carrier.ok()) return Unexpected{carrier.error()};
    if (*carrier) {
      sink.Gauge("fabric_netdev_carrier", "1 when the interface has a link (carrier), else 0.", dev,
                 static_cast<double>(**carrier));
    }
    auto duplex = ReadNetWord(dir, "duplex");
    if (!duplex.ok()) return Unexpected{duplex.error()};
    if (*duplex && (**duplex == "full" || **duplex == "half")) {
      sink.Gauge("fabric_netdev_full_duplex", "1 for a full-duplex link, 0 for half duplex.", dev,
                 **duplex == "full" ? 1 : 0);
    }
    auto operstate = ReadNetWord(dir, "operstate");
    if (!operstate.ok()) return Unexpected{operstate.error()};
    if (*operstate) {
      sink.Gauge("fabric_netdev_up", "1 when the interface's operational state (RFC 2863) is up.",
                 dev, **operstate == "up" ? 1 : 0);
      LabelPairs labels = dev;
      labels.emplace_back("operstate", **operstate);
      sink.Info("fabric_netdev_operstate_info",
                "The interface's operational state (RFC 2863): up, down, lowerlayerdown, dormant, "
                "notpresent, testing or unknown.",
                labels);
    }
    return OkStatus();
  }

  Status CollectPause(const std::string& ifname, const LabelPairs& dev, MetricSink& sink) {
    auto pause = ethtool_->Pause(ifname);
    if (pause.absent()) return OkStatus();
    if (!pause.ok()) return Unexpected{pause.error()};
    if (pause->autoneg) {
      sink.Gauge("fabric_netdev_pause_autoneg_enabled",
                 "1 when pause (flow control) settings are autonegotiated with the link partner.",
                 dev, *pause->autoneg ? 1 : 0);
    }
    const char* kEnabledHelp =
        "1 when link-level pause is enabled in this direction: rx honours the partner's pause "
        "frames, tx sends pause frames when the host falls behind.";
    const char* kFramesHelp =
        "Pause frames sent and received, from the kernel's standard pause statistics (ethtool "
        "netlink, IEEE 802.3 PAUSE MAC control frames). direction=tx counts this host asking "
        "its switch to stop: its receive path is the bottleneck.";
    for (auto [direction, enabled, frames] :
         {std::tuple{"rx", pause->rx, pause->rx_frames}, {"tx", pause->tx, pause->tx_frames}}) {
      LabelPairs labels = dev;
      labels.emplace_back("direction", direction);
      if (enabled) sink.Gauge("fabric_netdev_pause_enabled", kEnabledHelp, labels, *enabled);
      if (frames) {
        sink.Counter("fabric_netdev_pause_frames_total", kFramesHelp, labels,
                     static_cast<double>(*frames));
      }
    }
    return OkStatus();
  }

  Status CollectLimits(const std::string& ifname, const LabelPairs& dev, MetricSink& sink) {
    auto channels = ethtool_->Channels(ifname);
    if (!channels.ok() && !channels.absent()) return Unexpected{channels.error()};
    if (channels.ok()) {
      EmitLimits(*channels, dev, "kind", "fabric_netdev_channels",
                 "NIC channels (queue sets, each served by one interrupt and usually one CPU) by "
                 "kind: current setting and the driver's maximum. Fewer channels than busy CPUs "
                 "concentrates receive work.",
                 sink);
    }
    auto rings = ethtool_->Rings(ifname);
    if (!rings.ok() && !rings.absent()) return Unexpected{rings.error()};
    if (rings.ok()) {
      EmitLimits(*rings, dev, "ring", "fabric_netdev_ring_entries",
                 "NIC descriptor ring sizes in entries: current setting and the driver's maximum. "
                 "Small receive rings overflow (out_of_buffer, missed) during bursts.",
                 sink);
    }
    return OkStatus();
  }

  static void EmitLimits(const EthtoolLimits& limits, const LabelPairs& dev, const char* label,
                         const char* metric, const char* help, MetricSink& sink) {
    for (const auto& l : limits) {
      for (auto [bound, value] : {std::pair{"current", l.current}, std::pair{"max", l.max}}) {
        if (!value) continue;
        LabelPairs labels = dev;
        labels.emplace_back(label, l.kind);
        labels.emplace_back("bound", bound);
        sink.Gauge(metric, help, labels, static_cast<double>(*value));
      }
    }
  }

  // Which of an interface's driver statistics are exported, and as what.
  // A driver reports the same names in the same order every time, so this
  // is worked out once and reused while the names stay the same: typing 400
  // names per NIC on every scrape was a third of the collector's time.
  struct DriverStatPlan {
    struct Entry {
      size_t index;                          // Into the driver's report.
      std::optional<TypedDriverStat> typed;  // nullopt: untyped, driver_stats_include.
    };
    std::string driver;
    std::string names;  // Every reported name followed by '\0', in order.
    std::vector<Entry> entries;

    bool Matches(const std::string& drv, const EthtoolStats& stats) const {
      if (drv != driver) return false;
      size_t pos = 0;
      for (const auto& [name, value] : stats) {
        if (names.compare(pos, name.size(), name) != 0 || pos + name.size() >= names.size() ||
            names[pos + name.size()] != '\0') {
          return false;
        }
        pos += name.size() + 1;
      }
      return pos == names.size();
    }
  };

  DriverStatPlan MakePlan(const std::string& driver, const EthtoolStats& stats) const {
    DriverStatPlan plan;
    plan.driver = driver;
    // A driver may list a name twice (mlx5 does for some per-priority
    // counters on some firmware); a series must appear once.
    std::set<std::pair<std::string, LabelPairs>> seen;
    for (size_t i = 0; i < stats.size(); ++i) {
      const std::string& name = stats[i].first;
      plan.names += name;
      plan.names += '\0';
      auto typed = ClassifyDriverStat(driver, name);
      if (typed) {
        if (typed->per_queue && !settings_.queue_stats) continue;
        LabelPairs labels = typed->labels;
        if (!seen.emplace(std::string(typed->metric), labels).second) continue;
        plan.entries.push_back({i, std::move(typed)});
        continue;
      }
      if (!settings_.driver_stats_include ||
          !std::regex_search(name, *settings_.driver_stats_include)) {
        continue;
      }
      if (!seen.emplace("fabric_netdev_driver_statistic", LabelPairs{{"statistic", name}}).second) {
        continue;
      }
      plan.entries.push_back({i, std::nullopt});
    }
    return plan;
  }

  Status CollectDriverStats(const std::string& ifname, const std::string& driver,
                            MetricSink& sink) {
    auto stats = ethtool_->Stats(ifname);
    if (stats.absent()) return OkStatus();
    if (!stats.ok()) return Unexpected{stats.error()};
    DriverStatPlan& plan = driver_stat_plans_[ifname];
    if (!plan.Matches(driver, *stats)) plan = MakePlan(driver, *stats);
    for (const auto& entry : plan.entries) {
      const auto& [name, value] = (*stats)[entry.index];
      if (entry.typed) {
        const TypedDriverStat& typed = *entry.typed;
        LabelPairs labels = {{"device", ifname}};
        labels.insert(labels.end(), typed.labels.begin(), typed.labels.end());
        sink.Counter(typed.metric, typed.help, std::move(labels),
                     static_cast<double>(value) * typed.scale);
        continue;
      }
      sink.Gauge("fabric_netdev_driver_statistic",
                 "A driver statistic (ethtool -S) selected by collectors.netdev."
                 "driver_stats_include, exported as the driver reports it: untyped, most are "
                 "counters. Prefer the typed fabric_netdev_* series where one exists.",
                 {{"device", ifname}, {"statistic", name}}, static_cast<double>(value));
    }
    return OkStatus();
  }

  SysRoot root_;
  NetdevSettings settings_;
  std::unique_ptr<EthtoolBackend> ethtool_;
  std::map<std::string, DriverStatPlan> driver_stat_plans_;  // By interface.
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
  return std::make_unique<NetdevCollector>(context.root, std::move(settings));
}

}  // namespace fabric
