// fleet_sim: the fleet at scale on one machine. Every node of a model fabric
// runs the exporter's real probe plan (TopologyPlan), Scheduler and
// Timetable, ResultStore, generic probe adapter, detail set (ProbeDetailSet:
// bisection, retests, path rotation, per-pair or per-rack series, as
// ProbeRuntime runs it) and `probes` collector on a fake clock; only the measurement itself is
// modelled: a probe run returns the throughput the model fabric gives that pair, through the TCP
// and path rungs' own record builders (TcpMeasurements, PathMeasurement).
//
// The model fabric: nodes with a line rate in racks (leaf switches) with
// uplinks, a non-blocking core, and three faults injected one after the other
// after a healthy steady phase:
//   - a degraded node (its NIC trained down to 40% of line rate);
//   - a bad rack uplink (every flow crossing it loss-limited to 30%);
//   - a wrong route (one node's route to one rack leaves through its onboard
//     10 GbE NIC instead of the fabric interface).
// Series are counted from the real collector's output; staleness applies the
// stale rule to the exported records (age > 2 x the record's planned period
// + one round); detection is the time from a fault's injection to the first
// exported series that names it (fabric_probe_suspect, or the path rung's
// fabric_probe_egress_matches_expected == 0).
//
//   fleet_sim --nodes N [--json] [--check] [--rack-size 40] [--planes 1]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "active-probes/probe/probe.h"
#include "common/log.h"
#include "common/read/sysroot.h"
#include "common/stop_token.h"
#include "exporter/config/fleet.h"
#include "exporter/metrics/fleet_info.h"
#include "exporter/metrics/metric_sink.h"
#include "exporter/path_mesh/mesh_peers.h"
#include "exporter/path_mesh/mesh_settings.h"
#include "exporter/scheduled_probes/bisection.h"
#include "exporter/scheduled_probes/path_probe.h"
#include "exporter/scheduled_probes/probe_adapter.h"
#include "exporter/scheduled_probes/probe_detail_set.h"
#include "exporter/scheduled_probes/probe_plan.h"
#include "exporter/scheduled_probes/probe_results_collector.h"
#include "exporter/scheduled_probes/scheduler.h"
#include "exporter/scheduled_probes/tcp_ladder_probe.h"

namespace fabric {
namespace {

constexpr double kLineRate = 12.5e9;     // 100 Gb/s, bytes per second.
constexpr double kOnboardRate = 1.25e9;  // The 10 GbE onboard NIC.
constexpr double kTcpEfficiency = 0.94;
constexpr double kStartWall = 1.8e9;  // Unix time the simulation starts at.

// One clock for the whole fleet: every node agrees on the round number, as
// NTP-synchronised nodes do.
class FakeClock : public SchedulerClock {
 public:
  SteadyTime Now() override { return SteadyTime() + std::chrono::nanoseconds(int64_t(t_ * 1e9)); }
  double WallSeconds() override { return kStartWall + t_; }
  bool WaitUntil(SteadyTime) override { return true; }
  void Interrupt() override {}
  double t() const { return t_; }
  void Set(double t) { t_ = t; }
  static double Of(SteadyTime when) {
    return std::chrono::duration<double>(when - SteadyTime()).count();
  }

 private:
  double t_ = 0;
};

struct Options {
  size_t nodes = 16;
  size_t rack_size = 40;
  size_t planes = 1;
  bool json = false;
  bool check = false;
  double steady_hours = 6;  // The healthy phase before the faults.
  TcpLadderSettings tcp;    // The defaults: round, duration, warm-up.
  double path_interval = 60;
  double retest_seconds = 12;  // A retest runs the multi-stream rung only.
  double path_check_seconds = 0.001;
  // Targets (issue 22, at 1,000 nodes with defaults).
  double max_series_per_node = 5000;
  double max_time_share = 0.05;
  double max_detect_node_minutes = 30;
  double max_detect_uplink_minutes = 30;
  double max_detect_route_minutes = 5;
};

enum class Fault { kNone, kDegradedNode, kBadUplink, kWrongRoute };

// The model fabric and its faults.
struct Fabric {
  std::vector<FleetNode> nodes;
  std::map<std::string, size_t> index;
  std::map<std::string, std::string> rack_of;
  Fault fault = Fault::kNone;
  size_t degraded = 0;         // Node.
  std::string bad_rack;        // Its uplink.
  size_t misrouted = 0;        // Node whose route...
  std::string misrouted_rack;  // ...to this rack is wrong.

  bool WrongRoute(size_t from, size_t to) const {
    return fault == Fault::kWrongRoute && from == misrouted &&
           rack_of.at(nodes[to].name) == misrouted_rack;
  }
  // Throughput of one direction from `a` to `b` (TCP goodput).
  double Rate(size_t a, size_t b, uint64_t salt) const {
    double rate = kLineRate;
    if (fault == Fault::kDegradedNode && (a == degraded || b == degraded)) rate *= 0.4;
    const std::string& ra = nodes[a].rack;
    const std::string& rb = nodes[b].rack;
    if (fault == Fault::kBadUplink && ra != rb && (ra == bad_rack || rb == bad_rack)) rate *= 0.3;
    if (WrongRoute(a, b) || WrongRoute(b, a)) rate = std::min(rate, kOnboardRate);
    // +-2% run-to-run noise, deterministic.
    std::mt19937_64 noise(salt * 1000003 + a * 7919 + b);
    std::uniform_real_distribution<double> jitter(0.98, 1.02);
    return kTcpEfficiency * rate * jitter(noise);
  }
};

// A TCP rung whose measurement comes from the model fabric; its records are
// built by the real rung (TcpMeasurements) and adapter (RunAndRecord).
class ModelTcpProbe : public probe::Probe {
 public:
  ModelTcpProbe(probe::Rung rung, const Fabric& fabric, size_t self, size_t peer, uint64_t salt,
                uint32_t streams)
      : rung_(rung), fabric_(fabric), self_(self), peer_(peer), salt_(salt), streams_(streams) {}
  const probe::ProbeDeclaration& declaration() const override { return TcpRungDeclaration(); }
  probe::Rung rung() const override { return rung_; }
  std::string target() const override { return fabric_.nodes[peer_].name; }
  Result<std::vector<probe::Measurement>> Run(const probe::ProbeContext&) override {
    probe::TcpProbeResult result;
    result.peer = target();
    result.streams = streams_;
    const std::pair<probe::Direction, double> directions[] = {
        {probe::Direction::kSend, fabric_.Rate(self_, peer_, salt_)},
        {probe::Direction::kReceive, fabric_.Rate(peer_, self_, salt_ + 1)}};
    for (const auto& [direction, rate] : directions) {
      probe::DirectionResult d;
      d.direction = direction;
      d.streams = streams_;
      d.window_seconds = 10;
      d.bytes_per_second = rate;
      d.bytes = static_cast<uint64_t>(rate * d.window_seconds);
      d.per_stream = {rate / streams_, rate / streams_, rate / streams_};
      d.rtt_seconds = 20e-6;
      d.mss = 8948;
      d.cwnd_segments = 64;
      result.directions.push_back(d);
    }
    result.iface = fabric_.WrongRoute(self_, peer_) ? "eno1" : fabric_.nodes[self_].interface;
    return TcpMeasurements(result);
  }
  double send_rate() const { return fabric_.Rate(self_, peer_, salt_); }

 private:
  probe::Rung rung_;
  const Fabric& fabric_;
  size_t self_, peer_;
  uint64_t salt_;
  uint32_t streams_;
};

// The path rung: the route the model gives, through PathMeasurement.
class ModelPathProbe : public probe::Probe {
 public:
  ModelPathProbe(const Fabric& fabric, size_t self, size_t peer)
      : fabric_(fabric), self_(self), peer_(peer) {}
  const probe::ProbeDeclaration& declaration() const override { return PathProbeDeclaration(); }
  probe::Rung rung() const override { return probe::Rung::kPath; }
  std::string target() const override { return fabric_.nodes[peer_].name; }
  Result<std::vector<probe::Measurement>> Run(const probe::ProbeContext&) override {
    const FleetNode& self = fabric_.nodes[self_];
    const bool wrong = fabric_.WrongRoute(self_, peer_);
    RouteInfo route{wrong ? "eno1" : self.interface, self.address, "", wrong ? 1500 : 9000};
    const int mtu = ExpectedPathMtu(self, fabric_.nodes[peer_]);
    return std::vector<probe::Measurement>{
        PathMeasurement(self, route, mtu, std::optional<Result<bool>>(Result<bool>(!wrong)))};
  }

 private:
  const Fabric& fabric_;
  size_t self_, peer_;
};

struct Node {
  size_t index = 0;
  ResultStore store;
  // The exporter's own detail set: bisection, retests, path rotation, and
  // which peers get per-pair series.
  std::unique_ptr<ProbeDetailSet> detail;
  std::unique_ptr<Scheduler> scheduler;
  double busy_seconds = 0;
  double session_end = 0;               // Its responder or prober is busy until then.
  std::map<size_t, uint64_t> meetings;  // Plan meetings it initiated, by peer (from FirstMeeting).
};

class Simulation {
 public:
  explicit Simulation(const Options& options) : options_(options) {
    log::Configure(log::Level::kError, log::Format::kLogfmt);
    const size_t racks =
        std::max<size_t>(2, (options.nodes + options.rack_size - 1) / options.rack_size);
    std::vector<PlanMember> members;
    for (size_t i = 0; i < options.nodes; ++i) {
      FleetNode node;
      char name[48];
      std::snprintf(name, sizeof name, "node-%04zu", i);
      node.name = name;
      node.address = "198.18." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 1);
      node.interface = "ens1f0np0";
      node.mtu = 9000;
      char rack[32];
      std::snprintf(rack, sizeof rack, "r%02zu", i % racks);
      node.rack = rack;
      node.plane = "p" + std::to_string((i / racks) % options.planes);
      node.role = "compute";
      fabric_.index[node.name] = i;
      fabric_.rack_of[node.name] = node.rack;
      members.push_back({node.rack, node.plane});
      fabric_.nodes.push_back(node);
    }
    plan_ = std::make_shared<const TopologyPlan>(members);
    std::vector<std::string> rack_names;
    std::vector<std::string> node_names;
    for (const auto& n : fabric_.nodes) rack_names.push_back(n.rack);
    for (const auto& n : fabric_.nodes) node_names.push_back(n.name);
    for (const auto& n : fabric_.nodes) rack_members_[n.rack].push_back(fabric_.index[n.name]);
    // Faults: the degraded node in the first rack, the bad uplink on the
    // second, the wrong route from a node of the first rack into the last.
    fabric_.degraded = 0;
    fabric_.bad_rack = fabric_.nodes[1].rack;
    fabric_.misrouted = racks;  // Second member of the first rack.
    if (fabric_.misrouted >= options.nodes) fabric_.misrouted = 0;
    fabric_.misrouted_rack = fabric_.nodes[racks - 1].rack;

    std::mt19937_64 rng(42);
    const double round = options.tcp.round_seconds;
    std::uniform_real_distribution<double> plan_offset(0, 0.2 * round);
    std::uniform_real_distribution<double> retest_offset(0, 30);
    for (size_t i = 0; i < options.nodes; ++i) {
      auto node = std::make_unique<Node>();
      node->index = i;
      node->detail = std::make_unique<ProbeDetailSet>(
          node_names, rack_names, i, plan_, round, options.path_interval,
          std::make_unique<Bisection>(rack_names, i, kLineRate));
      Node* n = node.get();
      std::vector<ProbeTask> tasks;
      ProbeTask plan;
      plan.probe = "tcp_multi";
      plan.target = "plan";
      plan.timing.interval = Seconds(round);
      plan.timing.jitter_fraction = 0;
      plan.timing.first_due_seconds = plan_offset(rng);
      plan.run = [this, n](const CancelToken&) { return RunPlan(*n); };
      tasks.push_back(plan);
      for (double slot : {round / 3, 2 * round / 3}) {
        ProbeTask retest;
        retest.probe = "tcp_multi";
        retest.target = "retest";
        retest.timing.interval = Seconds(round);
        retest.timing.jitter_fraction = 0;
        retest.timing.first_due_seconds = slot + retest_offset(rng);
        retest.run = [this, n](const CancelToken&) { return RunRetest(*n); };
        tasks.push_back(retest);
      }
      ProbeTask path;
      path.probe = "path";
      path.target = "plan";
      path.timing.interval = Seconds(options.path_interval);
      path.run = [this, n](const CancelToken&) { return RunPath(*n); };
      tasks.push_back(path);
      node->scheduler = std::make_unique<Scheduler>(std::move(tasks), clock_,
                                                    Seconds(options.path_interval), 1000 + i);
      nodes_.push_back(std::move(node));
    }
  }

  void Run();

 private:
  uint64_t RoundNumber() const {
    return static_cast<uint64_t>(std::floor(clock_.WallSeconds() / options_.tcp.round_seconds));
  }
  probe::ProbeContext Context() { return probe::ProbeContext{root_, stop_.token(), clock_}; }
  // Both ends busy for `seconds` from now, unless either already is.
  bool Claim(Node& a, size_t peer, double seconds) {
    Node& b = *nodes_[peer];
    const double now = clock_.t();
    if (a.session_end > now || b.session_end > now) return false;
    a.session_end = b.session_end = now + seconds;
    a.busy_seconds += seconds;
    b.busy_seconds += seconds;
    return true;
  }
  ProbeOutcome RunPlan(Node& n) {
    auto planned = plan_->Round(n.index, RoundNumber());
    if (!planned || !planned->initiator) return ProbeOutcome::kIdle;
    // The probe time the runtime spends on this meeting (tcp_ladder_probe.h):
    // the single-stream rung only at its turn.
    const uint64_t meeting =
        n.meetings
            .try_emplace(planned->peer, FirstMeeting(options_.tcp, fabric_.nodes[n.index].name,
                                                     fabric_.nodes[planned->peer].name))
            .first->second;
    const double ladder = TcpLadderSeconds(options_.tcp, SingleStreamDue(options_.tcp, meeting));
    if (!Claim(n, planned->peer, ladder)) return ProbeOutcome::kBusy;
    ++n.meetings[planned->peer];
    const uint64_t salt = ++runs_;
    const double start = clock_.WallSeconds();
    ModelTcpProbe multi(probe::Rung::kTcpMulti, fabric_, n.index, planned->peer, salt,
                        options_.tcp.streams);
    ModelTcpProbe single(probe::Rung::kTcpSingle, fabric_, n.index, planned->peer, salt + 7, 1);
    ProbeOutcome outcome = RunAndRecord(multi, Context(), n.store);
    RunAndRecord(single, Context(), n.store);
    // As ProbeRuntime's plan round: the recorded send result is the evidence.
    if (auto sent = SendResultSince(n.store, fabric_.nodes[planned->peer].name, start)) {
      n.detail->ObservePlan(planned->peer, *sent, clock_.WallSeconds());
    }
    return outcome;
  }
  ProbeOutcome RunRetest(Node& n) {
    auto pending = n.detail->RetestPeer(clock_.WallSeconds());
    if (!pending) return ProbeOutcome::kIdle;
    const size_t peer = *pending;
    if (!Claim(n, peer, options_.retest_seconds)) return ProbeOutcome::kBusy;
    const double start = clock_.WallSeconds();
    ModelTcpProbe multi(probe::Rung::kTcpMulti, fabric_, n.index, peer, ++runs_,
                        options_.tcp.streams);
    ProbeOutcome outcome = RunAndRecord(multi, Context(), n.store);
    if (auto sent = SendResultSince(n.store, fabric_.nodes[peer].name, start)) {
      n.detail->ObserveRetest(peer, *sent, clock_.WallSeconds());
    }
    return outcome;
  }
  // The path rung checks what the exporter's rotation gives
  // (ProbeDetailSet::PathTargets): the detail peers and one member (in turn)
  // of a third of the racks, so a route to any rack is checked every 3
  // minutes while the number of checks stays bounded by the number of racks.
  ProbeOutcome RunPath(Node& n) {
    for (size_t peer : n.detail->PathTargets(clock_.WallSeconds())) {
      ModelPathProbe path(fabric_, n.index, peer);
      RunAndRecord(path, Context(), n.store);
      n.busy_seconds += options_.path_check_seconds;
      for (const auto& key : KeysOf(probe::Rung::kPath, fabric_.nodes[peer].name)) {
        if (auto record = n.store.Find(key)) n.detail->PathChecked(peer, PathCheckFailed(*record));
      }
    }
    return ProbeOutcome::kSuccess;
  }
  // The node's whole probe export: the probes collector and the fleet's
  // join series, as /metrics has them.
  std::vector<prometheus::MetricFamily> Scrape(const Node& n) {
    MetricSink sink;
    const Fleet fleet{fabric_.nodes[n.index].name, fabric_.nodes, FleetDigest(fabric_.nodes), ""};
    // The mesh's targets at its default size, as the exporter names them.
    std::vector<std::string> mesh_peers;
    for (const FleetNode& peer : ChooseMeshPeers(fleet, MeshSettings{}.max_peers)) {
      mesh_peers.push_back(peer.name);
    }
    auto collector = MakeProbeResultsCollector(
        n.store, [&n] { return n.scheduler->Stats(); },
        [this, &n, &fleet, &mesh_peers] {
          return ScrapePolicy(*n.detail, fleet, mesh_peers, clock_.WallSeconds());
        });
    (void)collector->Collect(sink);
    // As main.cc's constant series: every peer's join series only within the bound.
    if (n.detail->all_detail()) {
      AddFleetInfo(fleet, sink);
    } else {
      AddFleetNodeInfo(fleet, sink);
    }
    return sink.TakeSorted();
  }
  static size_t Count(const std::vector<prometheus::MetricFamily>& families) {
    size_t n = 0;
    for (const auto& f : families) n += f.metric.size();
    return n;
  }
  static std::string Label(const prometheus::ClientMetric& m, const std::string& name) {
    for (const auto& l : m.label) {
      if (l.name == name) return l.value;
    }
    return "";
  }
  // The stale rule over one node's export: a record is stale when its age
  // exceeds twice its planned period plus one round of slack.
  size_t Stale(const Node& n, const std::vector<prometheus::MetricFamily>& families) const {
    size_t stale = 0;
    for (const auto& f : families) {
      if (f.name != "fabric_probe_last_run_timestamp_seconds") continue;
      for (const auto& m : f.metric) {
        if (m.gauge.value == 0) continue;
        const std::string probe = Label(m, "probe");
        auto peer = fabric_.index.find(Label(m, "target"));
        if (peer == fabric_.index.end()) continue;
        const double period = probe == "path" ? options_.path_interval
                                              : plan_->PairPeriodRounds(n.index, peer->second) *
                                                    options_.tcp.round_seconds;
        const double age = clock_.WallSeconds() - m.gauge.value;
        if (age > 2 * period + options_.tcp.round_seconds) ++stale;
      }
    }
    return stale;
  }
  // Rounds of the real plan until every ordered rack pair of each plane has
  // been measured by some node pair (the steady phase is shorter than that at
  // 1,000 nodes, so this walks the plan itself, round by round).
  void Coverage() {
    for (uint64_t round = 0; round <= 4 * plan_->RackPairPeriodRounds() && !coverage_done_;
         ++round) {
      for (size_t from = 0; from < nodes_.size(); ++from) {
        auto planned = plan_->Round(from, round);
        if (!planned || !planned->initiator) continue;
        covered_.insert({fabric_.nodes[from].plane + "/" + fabric_.nodes[from].rack,
                         fabric_.nodes[planned->peer].rack});
      }
      if (covered_.size() == expected_pairs_) {
        coverage_done_ = true;
        coverage_seconds_ = (round + 1) * options_.tcp.round_seconds;
      }
    }
  }
  // Advances the fleet to `until`, running every node's due probes in time order.
  void AdvanceTo(double until);
  // Minutes from now until `found` holds (checked every minute), at most `limit`.
  template <typename Predicate>
  double Detect(double limit_minutes, Predicate found) {
    const double start = clock_.t();
    for (double minute = 1; minute <= limit_minutes; ++minute) {
      AdvanceTo(start + 60 * minute);
      if (found()) return minute;
    }
    return -1;
  }
  // Whether `node` exports fabric_probe_suspect{target, suspect} (its real export).
  bool Exports(const Node& n, const std::string& family,
               const std::function<bool(const prometheus::ClientMetric&)>& match) {
    for (const auto& f : Scrape(n)) {
      if (f.name != family) continue;
      for (const auto& m : f.metric) {
        if (match(m)) return true;
      }
    }
    return false;
  }

  Options options_;
  Fabric fabric_;
  mutable FakeClock clock_;  // Read by const views; only AdvanceTo moves it.
  SysRoot root_;
  StopSource stop_;
  std::shared_ptr<const TopologyPlan> plan_;
  std::map<std::string, std::vector<size_t>> rack_members_;
  std::vector<std::unique_ptr<Node>> nodes_;
  uint64_t runs_ = 0;
  std::set<std::pair<std::string, std::string>> covered_;
  size_t expected_pairs_ = 0;
  bool coverage_done_ = false;
  double coverage_seconds_ = -1;
};

void Simulation::AdvanceTo(double until) {
  using Due = std::pair<double, size_t>;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> queue;
  for (const auto& n : nodes_) queue.push({FakeClock::Of(n->scheduler->NextDue()), n->index});
  while (!queue.empty() && queue.top().first <= until) {
    auto [when, index] = queue.top();
    queue.pop();
    // A microsecond past: the double round trip of the due time may fall short of it.
    clock_.Set(std::max(clock_.t(), when + 1e-6));
    nodes_[index]->scheduler->RunDue();
    queue.push({FakeClock::Of(nodes_[index]->scheduler->NextDue()), index});
  }
  clock_.Set(until);
}

void Simulation::Run() {
  const double round = options_.tcp.round_seconds;
  for (const auto& a : fabric_.nodes) {
    for (const auto& b : fabric_.nodes) {
      if (a.plane == b.plane) covered_.insert({a.plane + "/" + a.rack, b.rack});
    }
  }
  expected_pairs_ = covered_.size();
  covered_.clear();
  Coverage();
  const double steady = options_.steady_hours * 3600;

  // The healthy steady phase, sampled for staleness in its second half.
  size_t stale_max = 0, series_max = 0, series_total_max = 0, peer_info_max = 0;
  auto sample = [&](bool stale) {
    size_t total = 0;
    for (const auto& n : nodes_) {
      auto families = Scrape(*n);
      const size_t count = Count(families);
      for (const auto& f : families) {
        if (f.name == "fabric_fleet_peer_info")
          peer_info_max = std::max(peer_info_max, f.metric.size());
      }
      series_max = std::max(series_max, count);
      total += count;
      if (stale) stale_max = std::max(stale_max, Stale(*n, families));
    }
    series_total_max = std::max(series_total_max, total);
  };
  for (double at : {0.5, 0.75, 1.0}) {
    AdvanceTo(at * steady);
    sample(true);
  }
  size_t false_suspects = 0;
  for (const auto& n : nodes_) false_suspects += n->detail->Suspects(clock_.WallSeconds()).size();

  const double limit = 60;
  // 1. A degraded node: named by a peer (suspect="peer") or by itself (suspect="self").
  const size_t degraded = fabric_.degraded;
  const std::string degraded_name = fabric_.nodes[degraded].name;
  fabric_.fault = Fault::kDegradedNode;
  double detect_node = Detect(limit, [&] {
    for (const auto& n : nodes_) {
      auto suspects = n->detail->Suspects(clock_.WallSeconds());
      bool named = false;
      if (n->index == degraded) {
        for (const auto& [peer, s] : suspects) named = named || s == Suspect::kSelf;
      } else {
        auto it = suspects.find(degraded);
        named = it != suspects.end() && it->second == Suspect::kPeer;
      }
      if (!named) continue;
      // Confirm on the node's real export.
      return Exports(*n, "fabric_probe_suspect", [&](const prometheus::ClientMetric& m) {
        return n->index == degraded
                   ? Label(m, "suspect") == "self"
                   : Label(m, "target") == degraded_name && Label(m, "suspect") == "peer";
      });
    }
    return false;
  });
  sample(false);
  fabric_.fault = Fault::kNone;
  AdvanceTo(clock_.t() + 3 * round);

  // 2. A bad rack uplink: a pair across it blamed on the path.
  fabric_.fault = Fault::kBadUplink;
  const std::string bad = fabric_.bad_rack;
  const double uplink_start = clock_.WallSeconds();
  double detect_uplink = Detect(limit, [&] {
    for (const auto& n : nodes_) {
      const std::string& own = fabric_.nodes[n->index].rack;
      for (const auto& [peer, s] : n->detail->Suspects(clock_.WallSeconds())) {
        const std::string& other = fabric_.nodes[peer].rack;
        if (s != Suspect::kPath || own == other || (own != bad && other != bad)) continue;
        const std::string peer_name = fabric_.nodes[peer].name;
        if (Exports(*n, "fabric_probe_suspect", [&](const prometheus::ClientMetric& m) {
              return Label(m, "target") == peer_name && Label(m, "suspect") == "path";
            })) {
          return true;
        }
      }
    }
    return false;
  });
  (void)uplink_start;
  sample(false);
  fabric_.fault = Fault::kNone;
  AdvanceTo(clock_.t() + 3 * round);

  // 3. A wrong route: the node's path rung exports egress_matches_expected 0.
  fabric_.fault = Fault::kWrongRoute;
  Node& misrouted = *nodes_[fabric_.misrouted];
  double detect_route = Detect(limit, [&] {
    return Exports(misrouted, "fabric_probe_egress_matches_expected",
                   [&](const prometheus::ClientMetric& m) {
                     return m.gauge.value == 0 &&
                            fabric_.rack_of.at(Label(m, "target")) == fabric_.misrouted_rack;
                   });
  });
  sample(false);

  double share_max = 0;
  for (const auto& n : nodes_) share_max = std::max(share_max, n->busy_seconds / clock_.t());
  const size_t racks = rack_members_.size();
  const double coverage_hours = coverage_done_ ? coverage_seconds_ / 3600 : -1;

  std::printf(
      "{\"nodes\": %zu, \"racks\": %zu, \"planes\": %zu, \"round_seconds\": %g, "
      "\"simulated_hours\": %.2f, \"series_per_node_max\": %zu, \"series_total\": %zu, "
      "\"probe_time_share_max\": %.4f, \"rack_pair_coverage_hours\": %.2f, "
      "\"rack_pair_period_bound_hours\": %.2f, \"stale_alerts_steady_state\": %zu, "
      "\"suspects_steady_state\": %zu, \"detect_degraded_node_minutes\": %g, "
      "\"detect_bad_rack_uplink_minutes\": %g, \"detect_wrong_route_minutes\": %g, "
      "\"peer_info_per_node_max\": %zu}\n",
      options_.nodes, racks, options_.planes, round, clock_.t() / 3600, series_max,
      series_total_max, share_max, coverage_hours, plan_->RackPairPeriodRounds() * round / 3600,
      stale_max, false_suspects, detect_node, detect_uplink, detect_route, peer_info_max);
  if (!options_.check) return;
  int failures = 0;
  auto expect = [&](bool ok, const char* what) {
    if (!ok) {
      std::fprintf(stderr, "fleet_sim: FAIL: %s\n", what);
      ++failures;
    }
  };
  expect(series_max <= options_.max_series_per_node, "series per node above the bound");
  // The peers' join series: every peer within the detail bound, above it at
  // most the mesh's targets and the peers the probe series name (a few per
  // round), never one per fleet member.
  const size_t peers = options_.nodes - 1;
  expect(peers <= ProbeDetailSet::kAllDetailMaxPeers
             ? peer_info_max == peers
             : peer_info_max <= MeshSettings{}.max_peers + 32 && peer_info_max < peers,
         "peer info series per node grow with the fleet");
  expect(share_max <= options_.max_time_share, "probe time share above the budget");
  expect(stale_max == 0, "stale records in steady state");
  expect(false_suspects == 0, "suspects raised on a healthy fabric");
  expect(coverage_done_, "some rack pair never measured");
  expect(detect_node > 0 && detect_node <= options_.max_detect_node_minutes,
         "degraded node not detected in time");
  expect(detect_uplink > 0 && detect_uplink <= options_.max_detect_uplink_minutes,
         "bad rack uplink not detected in time");
  expect(detect_route > 0 && detect_route <= options_.max_detect_route_minutes,
         "wrong route not detected in time");
  if (failures > 0) std::exit(1);
}

int Main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> double {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "fleet_sim: %s needs a value\n", arg.c_str());
        std::exit(2);
      }
      return std::atof(argv[++i]);
    };
    if (arg == "--nodes") {
      options.nodes = static_cast<size_t>(value());
    } else if (arg == "--rack-size") {
      options.rack_size = static_cast<size_t>(value());
    } else if (arg == "--planes") {
      options.planes = static_cast<size_t>(value());
    } else if (arg == "--steady-hours") {
      options.steady_hours = value();
    } else if (arg == "--json") {
      options.json = true;
    } else if (arg == "--check") {
      options.check = true;
    } else {
      std::fprintf(stderr,
                   "usage: fleet_sim --nodes N [--json] [--check] [--rack-size N] [--planes N] "
                   "[--steady-hours H]\n");
      return 2;
    }
  }
  if (options.nodes < 4 || options.rack_size < 2 || options.planes < 1) {
    std::fprintf(stderr, "fleet_sim: needs at least 4 nodes, racks of 2, one plane\n");
    return 2;
  }
  Simulation(options).Run();
  return 0;
}

}  // namespace
}  // namespace fabric

int main(int argc, char** argv) { return fabric::Main(argc, argv); }
