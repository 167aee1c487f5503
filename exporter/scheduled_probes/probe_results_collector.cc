#include "exporter/scheduled_probes/probe_results_collector.h"

#include <string>

namespace fabric {
namespace {

using probe::DirectionName;
using probe::RungLabel;

// The families every record has besides its values.
constexpr std::string_view kLastRun = "fabric_probe_last_run_timestamp_seconds";
constexpr std::string_view kSuccess = "fabric_probe_success";
constexpr std::string_view kRunDuration = "fabric_probe_run_duration_seconds";
constexpr std::string_view kInfo = "fabric_probe_info";
constexpr std::string_view kFailureInfo = "fabric_probe_failure_info";
constexpr std::string_view kVerdict = "fabric_probe_verdict";
constexpr std::string_view kRunsTotal = "fabric_probe_runs_total";
constexpr std::string_view kSkipsTotal = "fabric_probe_skips_total";
constexpr std::string_view kPeriod = "fabric_probe_period_seconds";
constexpr std::string_view kBudget = "fabric_probe_budget_ratio";
constexpr std::string_view kBusy = "fabric_probe_busy_ratio";
constexpr std::string_view kRecordFamilies[] = {kLastRun,     kSuccess, kRunDuration, kInfo,
                                                kFailureInfo, kVerdict, kPeriod,      kRunsTotal,
                                                kSkipsTotal,  kBudget,  kBusy};

class ProbeResultsCollector : public Collector {
 public:
  ProbeResultsCollector(const ResultStore& store,
                        std::function<std::map<std::string, ProbeTaskStats>()> stats,
                        std::function<BudgetState()> budget)
      : store_(store), stats_(std::move(stats)), budget_(std::move(budget)) {}

  Status Collect(MetricSink& sink) override {
    for (const auto& r : store_.Snapshot()) {
      LabelPairs key = {{"probe", std::string(RungLabel(r.key.probe))},
                        {"target", r.key.target},
                        {"direction", std::string(DirectionName(r.key.direction))}};
      sink.Gauge(kLastRun,
                 "Unix time the probe's last run ended; 0 until it has run once. Rules use it to "
                 "tell a stale ladder rung from a current one.",
                 key, r.timestamp_seconds);
      if (r.period_seconds > 0) {
        sink.Gauge(kPeriod,
                   "How often the schedule runs this probe record (a pair rung: the plan's period "
                   "for the pair; a comparison run: its rotation's; a local probe: its interval). "
                   "The stale alert judges a record's age against it.",
                   key, r.period_seconds);
      }
      if (r.timestamp_seconds == 0) continue;
      sink.Gauge(kSuccess, "1 if the probe's last run produced a result, else 0.", key,
                 r.success ? 1 : 0);
      sink.Gauge(kRunDuration, "Wall time of the probe's last run.", key, r.duration_seconds);
      if (!r.info.empty()) {
        LabelPairs labels = key;
        for (const auto& [name, value] : r.info) labels.emplace_back(name, value);
        sink.Info(kInfo,
                  "Descriptive labels of the probe's last run, e.g. for path probes the egress "
                  "interface and source address the kernel's route chose, and the expected "
                  "interface.",
                  labels);
      }
      if (!r.success) {
        LabelPairs labels = key;
        labels.emplace_back("reason", r.failure_reason);
        sink.Info(kFailureInfo, "Why the probe's last run failed (reason label).", labels);
        continue;
      }
      for (const auto& [id, value] : r.values) {
        const probe::ValueInfo& info = probe::InfoOf(id);
        sink.Gauge("fabric_probe_" + std::string(info.name), info.help, key, value);
      }
      for (const auto& [verdict, raised] : r.verdicts) {
        LabelPairs labels = key;
        labels.emplace_back("verdict", std::string(probe::VerdictName(verdict)));
        sink.Gauge(kVerdict,
                   "Self-checks of the last run: 1 if raised. cpu_bound: the probe or host ran out "
                   "of CPU, so the number is a harness ceiling; contended: other traffic shared "
                   "the path; stream_limited: throughput is streams x the per-stream ceiling; "
                   "latency_bound: throughput = in-flight / latency; congested (RDMA): CNPs or "
                   "receive-buffer drops in the window.",
                   labels, raised ? 1 : 0);
      }
    }
    if (budget_) {
      const BudgetState b = budget_();
      sink.Gauge(kBudget,
                 "Configured share of each hour this node may spend on probes, as requester and "
                 "as responder (probes.budget); comparison runs run only inside it.",
                 {}, b.budget_ratio);
      sink.Gauge(kBusy,
                 "Share of the last hour this node spent on probes, as requester and as "
                 "responder.",
                 {}, b.busy_ratio);
    }
    if (stats_) {
      for (const auto& [task, stats] : stats_()) {
        for (const auto& [outcome, n] : stats.runs) {
          sink.Counter(kRunsTotal, "Probe runs by outcome (success, failure, busy, timeout).",
                       {{"probe", stats.probe}, {"target", stats.target}, {"outcome", outcome}},
                       static_cast<double>(n));
        }
        for (const auto& [reason, n] : stats.skips) {
          sink.Counter(kSkipsTotal,
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
  std::function<BudgetState()> budget_;
};

}  // namespace

std::span<const std::string_view> ProbeRecordFamilies() { return kRecordFamilies; }

std::unique_ptr<Collector> MakeProbeResultsCollector(
    const ResultStore& store, std::function<std::map<std::string, ProbeTaskStats>()> stats,
    std::function<BudgetState()> budget) {
  return std::make_unique<ProbeResultsCollector>(store, std::move(stats), std::move(budget));
}

}  // namespace fabric
