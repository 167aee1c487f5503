#include "exporter/scheduled_probes/probe_results_collector.h"

#include <string>

namespace fabric {
namespace {

struct ValueDoc {
  const char* name;
  const char* help;
};

// Every value any probe may report. Units are in the names (base units).
// clang-format off
constexpr ValueDoc kValueCatalogue[] = {
  {"throughput_bytes_per_second",
   "Probe payload throughput over the measured window (warm-up excluded), counted at the receiver."},
  {"bytes", "Payload bytes moved inside the measured window."},
  {"window_seconds", "Length of the measured window."},
  {"streams", "Parallel streams, queue pairs or jobs the probe used."},
  {"stream_min_bytes_per_second", "Slowest stream's throughput."},
  {"stream_median_bytes_per_second", "Median stream's throughput."},
  {"stream_max_bytes_per_second", "Fastest stream's throughput."},
  {"retransmits", "TCP segments retransmitted during the window (TCP_INFO deltas)."},
  {"rtt_seconds", "Smoothed round-trip time at the end of the window."},
  {"cwnd_bytes", "Congestion window at the end of the window."},
  {"rwnd_limited_ratio", "Fraction of the window the sender was limited by the receiver's window."},
  {"sndbuf_limited_ratio", "Fraction of the window the sender was limited by its send buffer."},
  {"mss_bytes", "TCP maximum segment size of the probe connections."},
  {"local_cpu_ratio", "CPU time of this side's probe threads per second of window (1 = one core)."},
  {"remote_cpu_ratio", "CPU time of the responder per second of window (1 = one core)."},
  {"iops", "I/O operations per second over the measured window."},
  {"latency_p50_seconds", "Median I/O or message latency."},
  {"latency_p99_seconds", "99th percentile I/O or message latency."},
  {"latency_p999_seconds", "99.9th percentile I/O or message latency."},
  {"saturating_streams", "Smallest stream count of a sweep after which throughput stopped growing."},
  {"per_stream_ceiling_bytes_per_second", "Best single-stream throughput seen in a sweep."},
  {"route_mtu_bytes", "MTU of the kernel's route to the peer."},
  {"egress_matches_expected", "1 if the route to the peer leaves through the configured fabric interface."},
  {"jumbo_frames_pass",
   "1 if an ICMP echo of the path's expected MTU with Don't Fragment set came back from the peer."},
  {"jumbo_frame_bytes", "Size of the DF-set echo the jumbo check sent: the path's expected MTU."},
  {"copy_throughput_bytes_per_second",
   "Throughput of the same streams sending with read()/write() copies instead of sendfile: what a copying pipeline (dd | socat) can reach on this path."},
  {"buffered_throughput_bytes_per_second",
   "Storage throughput of the same jobs through the page cache instead of O_DIRECT: what cp/rsync-style tools can reach."},
  {"single_file_throughput_bytes_per_second",
   "Storage throughput of the same parallelism over one shared file instead of one file per job: read-offset contention."},
};
// clang-format on

class ProbeResultsCollector : public Collector {
 public:
  ProbeResultsCollector(const ResultStore& store,
                        std::function<std::map<std::string, ProbeTaskStats>()> stats)
      : store_(store), stats_(std::move(stats)) {}

  Status Collect(MetricSink& sink) override {
    for (const auto& r : store_.Snapshot()) {
      LabelPairs key = {
          {"probe", r.key.probe}, {"target", r.key.target}, {"direction", r.key.direction}};
      sink.Gauge("fabric_probe_last_run_timestamp_seconds",
                 "Unix time the probe's last run ended; 0 until it has run once. Rules use it to "
                 "tell a stale ladder rung from a current one.",
                 key, r.timestamp_seconds);
      if (r.timestamp_seconds == 0) continue;
      sink.Gauge("fabric_probe_success", "1 if the probe's last run produced a result, else 0.",
                 key, r.success ? 1 : 0);
      sink.Gauge("fabric_probe_run_duration_seconds", "Wall time of the probe's last run.", key,
                 r.duration_seconds);
      if (!r.info.empty()) {
        LabelPairs labels = key;
        for (const auto& [name, value] : r.info) labels.emplace_back(name, value);
        sink.Info("fabric_probe_info",
                  "Descriptive labels of the probe's last run, e.g. for path probes the egress "
                  "interface and source address the kernel's route chose, and the expected "
                  "interface.",
                  labels);
      }
      if (!r.success) {
        LabelPairs labels = key;
        labels.emplace_back("reason", r.failure_reason);
        sink.Info("fabric_probe_failure_info", "Why the probe's last run failed (reason label).",
                  labels);
        continue;
      }
      for (const auto& [name, value] : r.values) {
        const char* help = ProbeValueHelp(name);
        if (help == nullptr) continue;  // Not in the catalogue: never published.
        sink.Gauge("fabric_probe_" + name, help, key, value);
      }
      for (const auto& [verdict, raised] : r.verdicts) {
        LabelPairs labels = key;
        labels.emplace_back("verdict", verdict);
        sink.Gauge("fabric_probe_verdict",
                   "Self-checks of the last run: 1 if raised. cpu_bound: the probe or host ran out "
                   "of CPU, so the number is a harness ceiling; contended: other traffic shared "
                   "the path; stream_limited: throughput is streams x the per-stream ceiling; "
                   "latency_bound: throughput = in-flight / latency; congested (RDMA): CNPs or "
                   "receive-buffer drops in the window.",
                   labels, raised ? 1 : 0);
      }
    }
    if (stats_) {
      for (const auto& [task, stats] : stats_()) {
        for (const auto& [outcome, n] : stats.runs) {
          sink.Counter("fabric_probe_runs_total",
                       "Probe runs by outcome (success, failure, busy, timeout).",
                       {{"probe", stats.probe}, {"target", stats.target}, {"outcome", outcome}},
                       static_cast<double>(n));
        }
        for (const auto& [reason, n] : stats.skips) {
          sink.Counter("fabric_probe_skips_total",
                       "Probe runs skipped, by reason (e.g. fabric_busy: real traffic above the "
                       "configured fraction of line rate).",
                       {{"probe", stats.probe}, {"target", stats.target}, {"reason", reason}},
                       static_cast<double>(n));
        }
      }
    }
    return OkStatus();
  }

 private:
  const ResultStore& store_;
  std::function<std::map<std::string, ProbeTaskStats>()> stats_;
};

}  // namespace

const char* ProbeValueHelp(std::string_view name) {
  for (const auto& doc : kValueCatalogue) {
    if (name == doc.name) return doc.help;
  }
  return nullptr;
}

std::unique_ptr<Collector> MakeProbeResultsCollector(
    const ResultStore& store, std::function<std::map<std::string, ProbeTaskStats>()> stats) {
  return std::make_unique<ProbeResultsCollector>(store, std::move(stats));
}

}  // namespace fabric
