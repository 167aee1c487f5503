#include "exporter/collectors/flows_collector.h"

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/kernel/socket_owners.h"
#include "common/kernel/thread_run_times.h"
#include "common/log.h"
#include "common/parse/ip_address.h"
#include "common/read/file_reader.h"
#include "common/strings.h"
#include "exporter/backends/flow_source.h"
#include "exporter/collectors/flow_tracker.h"

namespace fabric {
namespace {

constexpr char kPrefix[] = "fabric_flows_";
constexpr std::chrono::seconds kMinDumpInterval{1};

// "22", "6800-7300".
PortRange ParsePortRange(const ConfigNode& apps, const std::string& name, const std::string& s) {
  auto dash = s.find('-');
  auto first = ParseUint64(TrimSpace(std::string_view(s).substr(0, dash)));
  auto last = dash == std::string::npos
                  ? first
                  : ParseUint64(TrimSpace(std::string_view(s).substr(dash + 1)));
  if (!first || !last || *first < 1 || *last > 65535 || *first > *last) {
    apps.Fail(name, "expected ports like 22 or 6800-7300, got " + Quote(s));
  }
  return {static_cast<uint16_t>(*first), static_cast<uint16_t>(*last)};
}

FlowsSettings ParseSettings(const ConfigNode& node, uint16_t probe_port) {
  FlowsSettings settings;
  settings.applications = DefaultApplications(probe_port);
  if (auto prefixes = node.StringList("local_addresses")) {
    for (const auto& text : *prefixes) {
      auto prefix = ParseIpPrefix(text);
      if (!prefix.ok()) node.Fail("local_addresses", prefix.error().message);
      settings.local_prefixes.push_back(*prefix);
    }
  }
  if (auto interfaces = node.StringList("interfaces")) settings.interfaces = *interfaces;
  if (auto threshold = node.Double("bulk_threshold_bytes_per_second", 1, 1e12)) {
    settings.bulk_threshold_bytes_per_second = *threshold;
  }
  if (auto max = node.Int("max_series", 1, 100000)) settings.max_series = static_cast<size_t>(*max);
  ConfigNode apps = node.Child("applications");
  if (apps.present()) {
    // Configured applications are looked up before the built-in ones, so
    // they can also take over a built-in port.
    std::vector<Application> configured;
    for (const auto& name : apps.MapKeys()) {
      if (name.empty() || name == "other") apps.Fail(name, "reserved application name");
      auto ports = apps.StringList(name);
      if (!ports || ports->empty()) apps.Fail(name, "expected a list of ports or ranges");
      Application app{name, {}};
      for (const auto& p : *ports) app.ports.push_back(ParsePortRange(apps, name, p));
      configured.push_back(std::move(app));
    }
    configured.insert(configured.end(), settings.applications.begin(), settings.applications.end());
    settings.applications = std::move(configured);
  }
  return settings;
}

class FlowsCollector : public Collector {
 public:
  FlowsCollector(FlowsSettings settings, std::unique_ptr<FlowSource> live, OwnerLookup owners,
                 RunnableLookup runnable, std::vector<FlowSnapshot> recording,
                 std::map<std::string, std::string> targets)
      : settings_(settings),
        tracker_(std::move(settings), std::move(owners), std::move(runnable)),
        live_(std::move(live)),
        recording_(std::move(recording)),
        targets_(std::move(targets)) {}

  Status Collect(MetricSink& sink) override {
    if (!recording_.empty()) {
      // Replaying: every scrape computes the last snapshot against the ones
      // before it from a fresh tracker, so the exposition never changes.
      FlowTracker replay(settings_);
      FlowReport report;
      for (const auto& snapshot : recording_) report = replay.Update(snapshot);
      Emit(report, sink);
      return OkStatus();
    }
    if (!live_) return OkStatus();  // A fixture tree without a recording.
    // Scrapes closer together than this (a second Prometheus, a curl) are
    // served the last result: rates over a few jiffies would be noise, and
    // hammering /metrics must not multiply the socket dumps.
    const auto now = std::chrono::steady_clock::now();
    if (last_report_ && now - last_dump_ < kMinDumpInterval) {
      Emit(*last_report_, sink);
      return OkStatus();
    }
    auto snapshot = live_->Snapshot();
    if (snapshot.absent()) return OkStatus();
    if (!snapshot.ok()) return Unexpected{snapshot.error()};
    last_report_ = tracker_.Update(*snapshot);
    last_dump_ = now;
    Emit(*last_report_, sink);
    return OkStatus();
  }

 private:
  static std::string Name(const char* suffix) { return std::string(kPrefix) + suffix; }

  // With `target`, the peer's name in the fleet config, where it is a fleet
  // member: rules then name the path of a transfer without a join on the
  // peer's fleet info, which a large fleet publishes only for its probe
  // detail peers. A host outside the fleet has no target label.
  // `extra`: the limiter of the gauges, the direction of the counters.
  LabelPairs Labels(const std::string& peer, const std::string& application,
                    const std::pair<const char*, const std::string*>& extra) const {
    LabelPairs labels = {{"peer", peer}, {"application", application}};
    if (extra.second != nullptr) labels.emplace_back(extra.first, *extra.second);
    if (auto target = targets_.find(peer); target != targets_.end()) {
      labels.emplace_back("target", target->second);
    }
    return labels;
  }

  void Emit(const FlowReport& report, MetricSink& sink) const {
    sink.Gauge(Name("sockets"),
               "TCP sockets on the fabric's local addresses that can carry data, bulk or idle; "
               "the exporter keeps a few counters per socket for them and forgets closed ones. "
               "Only this count grows with idle connections; the per-peer series do not.",
               {}, static_cast<double>(report.sockets));
    sink.Gauge(Name("bulk_threshold_bytes_per_second"),
               "Goodput from which a flow counts as bulk and is exported "
               "(collectors.flows.bulk_threshold_bytes_per_second).",
               {}, settings_.bulk_threshold_bytes_per_second);
    for (const auto& [key, agg] : report.active) {
      LabelPairs labels = Labels(key.peer, key.application, {"limiter", &key.limiter});
      sink.Gauge(Name("bulk_flows"),
                 "Bulk TCP flows active between the last two scrapes, by peer, application "
                 "(well-known port, else the process holding the socket) and limiter (what "
                 "held them back most of the interval: receiver_window, send_buffer, network, "
                 "application (including a receiver that stopped reading), or remote_sender "
                 "for flows that mostly receive here).",
                 labels, agg.bulk_flows);
      sink.Gauge(Name("goodput_bytes_per_second"),
                 "Application bytes per second of these bulk flows together (acked bytes sent, "
                 "or bytes received), between the last two scrapes. Compare with the TCP probe "
                 "on the same path: real transfers far below it are shapes 8 and 9.",
                 labels, agg.goodput);
      const BestFlow& b = agg.best;
      sink.Gauge(Name("best_flow_goodput_bytes_per_second"),
                 "Goodput of the fastest single flow of the group: one stream's ceiling.", labels,
                 b.goodput);
      sink.Gauge(Name("best_flow_rtt_seconds"),
                 "Smoothed RTT of the fastest flow of the group (tcpi_rtt). A window divided by "
                 "it is that window's rate ceiling.",
                 labels, b.rtt_seconds);
      if (b.delivery_rate) {
        sink.Gauge(Name("best_flow_delivery_rate_bytes_per_second"),
                   "The kernel's delivery-rate estimate for the fastest flow (tcpi_delivery_rate).",
                   labels, *b.delivery_rate);
      }
      const std::pair<const char*, const std::optional<double>*> windows[] = {
          {"congestion", &b.congestion_window_bytes},
          {"peer_receive", &b.peer_receive_window_bytes},
          {"receive_space", &b.receive_space_bytes},
          {"send_buffer", &b.send_buffer_bytes},
          {"receive_buffer", &b.receive_buffer_bytes},
      };
      for (const auto& [window, value] : windows) {
        if (!*value) continue;
        LabelPairs with_window = labels;
        with_window.emplace_back("window", window);
        sink.Gauge(Name("best_flow_window_bytes"),
                   "Windows and buffers in use by the fastest flow of the group: congestion "
                   "(cwnd x MSS), peer_receive (the peer's advertised window), receive_space "
                   "(our receive auto-tuning target), send_buffer and receive_buffer (socket "
                   "buffer sizes). Below rate x RTT, a window caps the flow (shape 1).",
                   with_window, **value);
      }
    }
    for (const auto& [key, c] : *report.counters) {
      const LabelPairs labels = Labels(key.peer, key.application, {"direction", &key.direction});
      sink.Counter(Name("transferred_bytes_total"),
                   "Bytes moved by bulk flows, by peer, application and direction (send, or "
                   "receive for flows the remote sender decides): one transfer over time "
                   "across its connections, each counted from its first byte. Series unused "
                   "for 15 minutes are dropped.",
                   labels, c.bytes);
      sink.Counter(Name("retransmitted_segments_total"),
                   "Segments retransmitted by bulk flows (tcpi_total_retrans deltas), by peer, "
                   "application and direction.",
                   labels, c.retransmits);
      for (const auto& [limiter, seconds] : c.limited_seconds) {
        sink.Counter(Name("limited_seconds_total"),
                     "Flow-seconds each limiter held the bulk flows of a peer and application "
                     "(the tcpi_busy_time, rwnd_limited and sndbuf_limited chronographs; "
                     "remote_sender for flows that receive here, not_reading while this end's "
                     "process left their receive queue half full or more): the share of time, "
                     "not one scrape, says what limits a transfer whose limiter alternates.",
                     Labels(key.peer, key.application, {"limiter", &limiter}), seconds);
      }
    }
  }

  FlowsSettings settings_;
  FlowTracker tracker_;
  std::unique_ptr<FlowSource> live_;
  std::vector<FlowSnapshot> recording_;
  const std::map<std::string, std::string> targets_;  // Peer address -> fleet name.
  std::optional<FlowReport> last_report_;
  std::chrono::steady_clock::time_point last_dump_;
};

}  // namespace

std::unique_ptr<Collector> MakeFlowsCollector(const CollectorContext& context) {
  const ConfigNode& node = context.settings;
  FlowsSettings settings = ParseSettings(node, context.probe_port);
  std::vector<FlowSnapshot> recording;
  if (auto path = node.String("recording")) {
    std::filesystem::path p(*path);
    if (p.is_relative() && !node.file().empty()) {
      p = std::filesystem::path(node.file()).parent_path() / p;
    }
    auto loaded = LoadFlowRecording(p.string());
    if (!loaded.ok()) node.Fail("recording", loaded.error().message);
    recording = std::move(*loaded);
  }
  std::unique_ptr<FlowSource> live;
  OwnerLookup owners;
  RunnableLookup runnable;
  if (recording.empty()) {
    if (IsProcfsMount(context.root.procfs())) {
      live = MakeNetlinkFlowSource();
      owners = [root = context.root](const std::set<uint64_t>& inodes) {
        return FindSocketOwners(root, inodes);
      };
      runnable = [root = context.root](uint32_t pid) {
        return ReadThreadRunnableNanoseconds(root, pid);
      };
    } else {
      log::Info(
          "flows: --path.procfs is not a live procfs (a fixture tree?) and no "
          "collectors.flows.recording is set: no flows are reported",
          {{"procfs", context.root.procfs()}});
    }
  }
  // The fleet's peers by address, in the form the flow keys carry it
  // (IpAddress::ToString: canonical, an IPv4-mapped address as IPv4).
  std::map<std::string, std::string> targets;
  if (context.fleet != nullptr) {
    for (const FleetNode& peer : context.fleet->nodes) {
      if (peer.name == context.fleet->self) continue;
      auto address = ParseIpAddress(peer.address);
      if (address.ok()) targets.emplace(address->ToString(), peer.name);
    }
  }
  return std::make_unique<FlowsCollector>(std::move(settings), std::move(live), std::move(owners),
                                          std::move(runnable), std::move(recording),
                                          std::move(targets));
}

}  // namespace fabric
