#include "exporter/ladder/ladder_facts.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <optional>
#include <tuple>

namespace fabric::ladder {
namespace {

constexpr std::array<std::string_view, 21> kFactFamilies = {
    "fabric_collective_bus_bandwidth_bytes_per_second",
    "fabric_flows_goodput_bytes_per_second",
    "fabric_netdev_speed_bytes",
    "fabric_nfs_mount_info",
    "fabric_nfs_mount_requested_rsize_bytes",
    "fabric_nfs_mount_requested_wsize_bytes",
    "fabric_nfs_mount_rsize_bytes",
    "fabric_nfs_mount_wsize_bytes",
    "fabric_pcie_link_current_width_lanes",
    "fabric_pcie_link_max_width_lanes",
    "fabric_pcie_netdev_info",
    "fabric_pcie_path_bottleneck_info",
    "fabric_pcie_path_capable_bandwidth_bytes_per_second",
    "fabric_pcie_path_current_bandwidth_bytes_per_second",
    "fabric_pcie_path_downtrained_hops",
    "fabric_pcie_path_slot_limited",
    "fabric_rdma_queue_pairs",
    "fabric_sockbuf_core_rmem_max_bytes",
    "fabric_sockbuf_core_wmem_max_bytes",
    "fabric_sockbuf_tcp_rmem_bytes",
    "fabric_sockbuf_tcp_wmem_bytes",
};

// The socket-buffer maxima as the rules' instance_sysctl:fabric_socket_buffer_max_bytes:max
// names them: family, the `bound` label it needs ("" for none), sysctl.
struct SocketBufferMax {
  const char* family;
  const char* bound;
  const char* sysctl;
};
constexpr std::array<SocketBufferMax, 4> kSocketBufferMaxima = {{
    {"fabric_sockbuf_core_rmem_max_bytes", "", "net.core.rmem_max"},
    {"fabric_sockbuf_core_wmem_max_bytes", "", "net.core.wmem_max"},
    {"fabric_sockbuf_tcp_rmem_bytes", "max", "net.ipv4.tcp_rmem"},
    {"fabric_sockbuf_tcp_wmem_bytes", "max", "net.ipv4.tcp_wmem"},
}};

using prometheus::ClientMetric;
using prometheus::MetricFamily;

std::string Label(const ClientMetric& m, const std::string& name) {
  for (const auto& l : m.label) {
    if (l.name == name) return l.value;
  }
  return "";
}

double ValueOf(const ClientMetric& m) {
  // Collectors write gauges, counters and infos (gauges of 1); untyped never.
  return m.gauge.value != 0 ? m.gauge.value : m.counter.value;
}

const MetricFamily* FamilyNamed(const std::vector<MetricFamily>& families, const std::string& n) {
  // The exporter keeps only these families for the ladder page: a family read here must be
  // listed there (or in the history's).
  assert(IsFactFamily(n) || IsHistoryFamily(n));
  auto it = std::find_if(families.begin(), families.end(),
                         [&](const MetricFamily& f) { return f.name == n; });
  return it == families.end() ? nullptr : &*it;
}

// The value of `family` at the sample whose `label` is `value`.
std::optional<double> Lookup(const std::vector<MetricFamily>& families, const std::string& family,
                             const std::string& label, const std::string& value) {
  const MetricFamily* f = FamilyNamed(families, family);
  if (f == nullptr) return std::nullopt;
  for (const auto& m : f->metric) {
    if (Label(m, label) == value) return ValueOf(m);
  }
  return std::nullopt;
}

constexpr std::string_view kGoodput = "fabric_flows_goodput_bytes_per_second";

// The window's rates per peer x direction x application from the goodput of recent scrapes,
// each weighted by the time since the scrape before it, from the scrape where the application
// first moved bulk data to this peer in the window (a program that started inside it is judged
// over its own life) to the latest; a scrape that saw no bulk flow of it counts as nothing
// moved (a per-file loop between two connections). The goodput is the flows collector's own
// bytes over its own interval, so a recorded replay gives the same rates as live sockets.
void WindowedRates(const CounterHistory& history,
                   const std::map<std::string, std::string>& peer_names, PassiveFacts& facts) {
  facts.windowed.window_seconds = history.window_seconds;
  const auto& scrapes = history.scrapes;
  if (scrapes.empty()) return;
  const double now = scrapes.back().first;
  using Key = std::tuple<std::string, std::string, std::string>;
  struct Average {
    size_t since = 0;  // The scrape it first moved in.
    double weighted = 0;
  };
  std::map<Key, Average> averages;
  std::vector<double> weights(scrapes.size(), 0);
  for (size_t i = 0; i < scrapes.size(); ++i) {
    const double seconds = scrapes[i].first;
    // The first scrape has no interval before it: it weighs as the one after it.
    weights[i] = i > 0                ? seconds - scrapes[i - 1].first
                 : scrapes.size() > 1 ? scrapes[1].first - seconds
                                      : 1;
    if (now - seconds > history.window_seconds) continue;
    const MetricFamily* goodput = FamilyNamed(*scrapes[i].second, std::string(kGoodput));
    if (goodput == nullptr) continue;
    for (const auto& m : goodput->metric) {
      auto name = peer_names.find(Label(m, "peer"));
      if (name == peer_names.end() || Label(m, "application") == "fabric_probe") continue;
      const char* direction = Label(m, "limiter") == "remote_sender" ? "receive" : "send";
      auto [it, first] =
          averages.try_emplace({name->second, direction, Label(m, "application")}, Average{i, 0});
      it->second.weighted += ValueOf(m) * weights[i];
    }
  }
  for (const auto& [key, average] : averages) {
    const auto& [peer, direction, application] = key;
    double span = 0;
    for (size_t i = average.since; i < scrapes.size(); ++i) span += weights[i];
    if (span <= 0) continue;
    facts.windowed.transfers[peer][direction] += average.weighted / span;
    facts.windowed.applications[peer][direction][application] += average.weighted / span;
  }
}

}  // namespace

bool IsHistoryFamily(std::string_view name) { return name == kGoodput; }

bool IsFactFamily(std::string_view name) {
  return std::find(kFactFamilies.begin(), kFactFamilies.end(), name) != kFactFamilies.end();
}

PassiveFacts FactsFromFamilies(const std::vector<MetricFamily>& families,
                               const std::string& interface,
                               const std::map<std::string, std::string>& peer_names,
                               const CounterHistory* history) {
  PassiveFacts facts;
  facts.interface = interface;
  if (!interface.empty()) {
    if (auto speed = Lookup(families, "fabric_netdev_speed_bytes", "device", interface);
        speed && *speed > 0) {
      facts.line_rate = *speed;
    }
    if (const MetricFamily* info = FamilyNamed(families, "fabric_pcie_netdev_info")) {
      for (const auto& m : info->metric) {
        if (Label(m, "device") == interface) facts.pcie_address = Label(m, "address");
      }
    }
  }
  const std::string& address = facts.pcie_address;
  if (!address.empty()) {
    facts.pcie_current =
        Lookup(families, "fabric_pcie_path_current_bandwidth_bytes_per_second", "address", address);
    facts.pcie_capable =
        Lookup(families, "fabric_pcie_path_capable_bandwidth_bytes_per_second", "address", address);
    facts.pcie_slot_limited =
        Lookup(families, "fabric_pcie_path_slot_limited", "address", address).value_or(0) > 0;
    facts.pcie_downtrained_hops = static_cast<int>(
        Lookup(families, "fabric_pcie_path_downtrained_hops", "address", address).value_or(0));
    facts.pcie_capable_width = static_cast<int>(
        Lookup(families, "fabric_pcie_link_max_width_lanes", "address", address).value_or(0));
    // The narrowest hop's trained width: the link the bottleneck info names.
    std::string hop = address;
    if (const MetricFamily* b = FamilyNamed(families, "fabric_pcie_path_bottleneck_info")) {
      for (const auto& m : b->metric) {
        if (Label(m, "address") == address && !Label(m, "hop").empty()) hop = Label(m, "hop");
      }
    }
    facts.pcie_width = static_cast<int>(
        Lookup(families, "fabric_pcie_link_current_width_lanes", "address", hop).value_or(0));
  }
  for (const auto& m : kSocketBufferMaxima) {
    const MetricFamily* family = FamilyNamed(families, m.family);
    if (family == nullptr) continue;
    for (const auto& sample : family->metric) {
      if (Label(sample, "bound") == m.bound) facts.socket_buffer_max[m.sysctl] = ValueOf(sample);
    }
  }
  // As instance_target_direction:fabric_transfers_bytes_per_second:sum: every application's
  // bulk flows but the probe's own, a flow its remote sender limits counted as received.
  if (const MetricFamily* flows = FamilyNamed(families, "fabric_flows_goodput_bytes_per_second")) {
    for (const auto& m : flows->metric) {
      auto name = peer_names.find(Label(m, "peer"));
      if (name == peer_names.end() || Label(m, "application") == "fabric_probe") continue;
      const char* direction = Label(m, "limiter") == "remote_sender" ? "receive" : "send";
      facts.transfers[name->second][direction] += ValueOf(m);
      facts.applications[name->second][direction][Label(m, "application")] += ValueOf(m);
    }
  }
  if (history != nullptr) {
    WindowedRates(*history, peer_names, facts);
  } else {
    facts.windowed.transfers = facts.transfers;
    facts.windowed.applications = facts.applications;
  }
  // NFS mounts whose server is a fleet peer, with their transfer sizes (by mount point).
  if (const MetricFamily* mounts = FamilyNamed(families, "fabric_nfs_mount_info")) {
    for (const auto& m : mounts->metric) {
      const std::string peer = Label(m, "peer");
      if (peer.empty()) continue;
      NfsMountFact fact;
      fact.mount_point = Label(m, "mountpoint");
      fact.transport = Label(m, "transport");
      auto size = [&](const char* family) {
        return Lookup(families, family, "mountpoint", fact.mount_point);
      };
      fact.rsize = size("fabric_nfs_mount_rsize_bytes");
      fact.wsize = size("fabric_nfs_mount_wsize_bytes");
      fact.requested_rsize = size("fabric_nfs_mount_requested_rsize_bytes");
      fact.requested_wsize = size("fabric_nfs_mount_requested_wsize_bytes");
      facts.nfs_mounts[peer].push_back(std::move(fact));
    }
  }
  if (const MetricFamily* c =
          FamilyNamed(families, "fabric_collective_bus_bandwidth_bytes_per_second")) {
    for (const auto& m : c->metric) {
      facts.collectives.push_back(CollectiveFact{Label(m, "collective"), Label(m, "message_size"),
                                                 Label(m, "scope"), Label(m, "source"),
                                                 ValueOf(m)});
    }
  }
  // Connected RDMA queue pairs ready to send, by the peer their rdma_cm id names and owning
  // process (the management QPs 0 and 1, UD and raw QPs have no one peer).
  if (const MetricFamily* qps = FamilyNamed(families, "fabric_rdma_queue_pairs")) {
    for (const auto& m : qps->metric) {
      const std::string type = Label(m, "type");
      if (Label(m, "state") != "RTS" ||
          (type != "RC" && type != "UC" && type.rfind("XRC", 0) != 0)) {
        continue;
      }
      facts.rdma_queue_pairs[Label(m, "peer")][Label(m, "command")] += ValueOf(m);
    }
  }
  return facts;
}

}  // namespace fabric::ladder
