#include "exporter/scheduled_probes/probe_results_collector.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

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
constexpr std::string_view kSpentSeconds = "fabric_probe_spent_seconds_total";
constexpr std::string_view kSpentBytes = "fabric_probe_spent_bytes_total";
constexpr std::string_view kSpentRdmaBytes = "fabric_probe_spent_rdma_bytes_total";
constexpr std::string_view kRackThroughput = "fabric_probe_rack_throughput_bytes_per_second";
constexpr std::string_view kRackPaths = "fabric_probe_rack_paths";
constexpr std::string_view kSuspect = "fabric_probe_suspect";
constexpr std::string_view kUncontendedThroughput =
    "fabric_probe_uncontended_throughput_bytes_per_second";
constexpr std::string_view kUncontendedTimestamp = "fabric_probe_uncontended_timestamp_seconds";
constexpr std::string_view kCleanThroughput = "fabric_probe_clean_throughput_bytes_per_second";
constexpr std::string_view kCleanTimestamp = "fabric_probe_clean_timestamp_seconds";
constexpr std::string_view kRecordFamilies[] = {
    kLastRun, kSuccess, kRunDuration, kInfo, kFailureInfo, kVerdict, kPeriod, kRunsTotal,
    kSkipsTotal, kBudget, kBusy, kRackThroughput, kRackPaths, kSuspect, kSpentSeconds, kSpentBytes,
    kSpentRdmaBytes,
    // The kept results.
    kUncontendedThroughput, kUncontendedTimestamp, kCleanThroughput, kCleanTimestamp};

// The record's kept results (ResultStore keeps them for the ladder's rungs across contended and
// failed runs), two series each: what the run moved and when it ended, so the rules divide by
// the last uncontended result and see its age.
struct KeptFamilies {
  std::optional<KeptResult> ProbeRecord::*kept;
  std::string_view throughput, throughput_help, timestamp, timestamp_help;
};
const KeptFamilies kKept[] = {
    {&ProbeRecord::uncontended, kUncontendedThroughput,
     "Throughput of the probe's last successful run that shared its path with no other traffic "
     "(not flagged contended; cpu_bound runs count). A contended or failed run never replaces "
     "it: rules divide real transfers by it.",
     kUncontendedTimestamp,
     "Unix time the run of fabric_probe_uncontended_throughput_bytes_per_second ended (its age: "
     "how old the evidence the rules divide by is)."},
    {&ProbeRecord::clean, kCleanThroughput,
     "Throughput of the probe's last successful run that no harness limit touched (flagged "
     "neither contended nor cpu_bound). A contended, CPU-bound or failed run never replaces it: "
     "cause alerts judge paths by it.",
     kCleanTimestamp,
     "Unix time the run of fabric_probe_clean_throughput_bytes_per_second ended."}};

void AddKeptResults(const ProbeRecord& r, const LabelPairs& key, MetricSink& sink) {
  for (const KeptFamilies& family : kKept) {
    const std::optional<KeptResult>& kept = r.*family.kept;
    if (!kept) continue;
    sink.Gauge(family.throughput, family.throughput_help, key, kept->bytes_per_second);
    sink.Gauge(family.timestamp, family.timestamp_help, key, kept->timestamp_seconds);
  }
}

// The records of one (probe, direction, target rack) without per-pair detail.
struct RackSummary {
  size_t paths = 0;
  std::vector<double> throughput;
};

void AddRackSummaries(
    const std::map<std::tuple<std::string, std::string, std::string>, RackSummary>& summaries,
    MetricSink& sink) {
  for (const auto& [key, summary] : summaries) {
    const auto& [probe, direction, rack] = key;
    LabelPairs labels = {{"probe", probe}, {"direction", direction}, {"target_rack", rack}};
    sink.Gauge(kRackPaths,
               "Peers in the target rack whose latest result is summarised here instead of "
               "being published per pair (bounded cardinality at fleet scale).",
               labels, static_cast<double>(summary.paths));
    if (summary.throughput.empty()) continue;
    std::vector<double> sorted = summary.throughput;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted.size() % 2 == 1
                              ? sorted[sorted.size() / 2]
                              : (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]) / 2;
    const std::pair<const char*, double> stats[] = {
        {"min", sorted.front()}, {"median", median}, {"max", sorted.back()}};
    for (const auto& [stat, value] : stats) {
      LabelPairs with_stat = labels;
      with_stat.emplace_back("stat", stat);
      sink.Gauge(kRackThroughput,
                 "Latest probe throughput to the peers of the target rack that have no per-pair "
                 "series: min, median and max over them (failed runs count in "
                 "fabric_probe_rack_paths only).",
                 with_stat, value);
    }
  }
}

class ProbeResultsCollector : public Collector {
 public:
  ProbeResultsCollector(const ResultStore& store,
                        std::function<std::map<std::string, ProbeTaskStats>()> stats,
                        std::function<BudgetState()> budget,
                        std::function<ProbeDetailPolicy()> policy)
      : store_(store),
        stats_(std::move(stats)),
        budget_(std::move(budget)),
        policy_source_(std::move(policy)) {}

  Status Collect(MetricSink& sink) override {
    const ProbeDetailPolicy policy = policy_source_ ? policy_source_() : ProbeDetailPolicy{};
    std::map<std::tuple<std::string, std::string, std::string>, RackSummary> summaries;
    std::set<std::string> named;  // Targets with per-pair series: their peer info joins them.
    for (const auto& r : store_.Snapshot()) {
      if (policy.detail && !policy.detail(r.key)) {
        if (r.timestamp_seconds == 0) continue;  // Never ran: nothing to summarise.
        RackSummary& summary = summaries[{
            std::string(RungLabel(r.key.probe)), std::string(DirectionName(r.key.direction)),
            policy.rack_of ? policy.rack_of(r.key.target) : std::string()}];
        ++summary.paths;
        if (auto value = r.values.find(probe::ProbeValue::kThroughput);
            r.success && value != r.values.end()) {
          summary.throughput.push_back(value->second);
        }
        continue;
      }
      named.insert(r.key.target);
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
      AddKeptResults(r, key, sink);
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
      const std::pair<const char*, ProbeSpending> roles[] = {{"requester", b.requester},
                                                             {"responder", b.responder}};
      for (const auto& [role, spent] : roles) {
        sink.Counter(kSpentSeconds,
                     "Wall time this node spent on probes in this role since it started: "
                     "requester, the probes it ran (a round's rungs and comparison runs); "
                     "responder, the sessions it served. increase(...[1h]) is the hour's cost.",
                     {{"role", role}}, spent.seconds);
        sink.Counter(kSpentBytes,
                     "Bytes the TCP data streams of this node's probes moved in this role since "
                     "it started, both directions, warm-up included (RDMA writes and storage "
                     "I/O are not counted).",
                     {{"role", role}}, static_cast<double>(spent.bytes));
        for (const auto& [port, bytes] : spent.rdma_bytes) {
          sink.Counter(
              kSpentRdmaBytes,
              "RDMA bytes this node's RDMA probes moved through each local RDMA port in "
              "this role since it started (every completed WRITE, warm-up included): "
              "the probe's share of fabric_rdma_port_bytes_total, which the rule "
              "fabric:rdma_port_application_bytes:rate5m takes off.",
              {{"role", role}, {"device", port.first}, {"port", std::to_string(port.second)}},
              static_cast<double>(bytes));
        }
      }
    }
    AddRackSummaries(summaries, sink);
    if (policy.suspects) {
      for (const auto& [target, suspect] : policy.suspects()) {
        named.insert(target);
        sink.Gauge(kSuspect,
                   "1 for the end the bisection retests blame for a low or failed result to the "
                   "target: self (this node), peer (the target) or path (between their racks).",
                   {{"target", target}, {"suspect", suspect}}, 1);
      }
    }
    if (policy.peer_info) policy.peer_info(named, sink);
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
  std::function<ProbeDetailPolicy()> policy_source_;
};

}  // namespace

std::span<const std::string_view> ProbeRecordFamilies() { return kRecordFamilies; }

std::unique_ptr<Collector> MakeProbeResultsCollector(
    const ResultStore& store, std::function<std::map<std::string, ProbeTaskStats>()> stats,
    std::function<BudgetState()> budget) {
  return std::make_unique<ProbeResultsCollector>(store, std::move(stats), std::move(budget),
                                                 nullptr);
}

std::unique_ptr<Collector> MakeProbeResultsCollector(
    const ResultStore& store, std::function<std::map<std::string, ProbeTaskStats>()> stats,
    ProbeDetailPolicy policy, std::function<BudgetState()> budget) {
  return std::make_unique<ProbeResultsCollector>(store, std::move(stats), std::move(budget),
                                                 [policy = std::move(policy)] { return policy; });
}

std::unique_ptr<Collector> MakeProbeResultsCollector(
    const ResultStore& store, std::function<std::map<std::string, ProbeTaskStats>()> stats,
    std::function<ProbeDetailPolicy()> policy, std::function<BudgetState()> budget) {
  return std::make_unique<ProbeResultsCollector>(store, std::move(stats), std::move(budget),
                                                 std::move(policy));
}

}  // namespace fabric
