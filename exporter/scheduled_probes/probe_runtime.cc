#include "exporter/scheduled_probes/probe_runtime.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <random>
#include <thread>

#include "active-probes/control/auth.h"
#include "active-probes/control/cidr.h"
#include "active-probes/control/conn.h"
#include "active-probes/rdma/backend.h"
#include "active-probes/rdma/rdma_session.h"
#include "active-probes/responder/responder.h"
#include "common/kernel/net_class.h"
#include "common/log.h"
#include "exporter/path_mesh/path_mesh.h"
#include "exporter/scheduled_probes/path_probe.h"
#include "exporter/scheduled_probes/probe_adapter.h"
#include "exporter/scheduled_probes/probe_detail_set.h"
#include "exporter/scheduled_probes/probe_plan.h"
#include "exporter/scheduled_probes/probe_results_collector.h"
#include "exporter/scheduled_probes/storage_comparison_probe.h"
#include "exporter/scheduled_probes/tcp_comparison_probe.h"

namespace fabric {
namespace {

using probe::Rung;

// The comparison runs' rotations (COMPARISON_RUNS). A pair's copy-mode run and
// its stream sweep take turns at the pair's plan slots (the sweep only while a
// tcp_multi result asks for it); the storage comparisons take turns at the
// storage interval, shared and separate files in one slot.
std::vector<ComparisonRotation::Slot> PairComparisonSlots() {
  return {{Rung::kTcpMultiCopy}, {Rung::kTcpMultiSweep}};
}

std::vector<ComparisonRotation::Slot> StorageComparisonSlots() {
  return {{Rung::kStorageReadBuffered},
          {Rung::kStorageReadSharedFile, Rung::kStorageReadSeparateFiles},
          {Rung::kStorageReadDepth1, Rung::kStorageWriteDepth1}};
}

// Keeps the wall time a task ran, and the bytes its probes moved, against the
// budget as the requester's, however it returns.
class BudgetSpan {
 public:
  BudgetSpan(ProbeBudget& budget, fabric::Clock& clock, const std::atomic<uint64_t>& moved)
      : budget_(budget),
        clock_(clock),
        moved_(moved),
        start_(clock.WallSeconds()),
        start_bytes_(moved.load(std::memory_order_relaxed)) {}
  ~BudgetSpan() {
    const double end = clock_.WallSeconds();
    budget_.Spent(end, end - start_, ProbeRole::kRequester,
                  moved_.load(std::memory_order_relaxed) - start_bytes_);
  }
  BudgetSpan(const BudgetSpan&) = delete;
  BudgetSpan& operator=(const BudgetSpan&) = delete;

 private:
  ProbeBudget& budget_;
  fabric::Clock& clock_;
  const std::atomic<uint64_t>& moved_;
  double start_;
  uint64_t start_bytes_;
};

}  // namespace

ProbeSettings ParseProbeSettings(const ConfigNode& section) {
  ProbeSettings settings;
  section.ExpectMapWithKeys({"state_file", "recording", "loopback", "max_splay",
                             "skip_when_busy_fraction", "budget", "secret_file", "path", "tcp",
                             "responder", "storage", "rdma", "mesh"});
  settings.state_file = section.String("state_file").value_or("");
  if (auto recording = section.String("recording"); recording && !recording->empty()) {
    std::filesystem::path p(*recording);
    if (p.is_relative() && !section.file().empty()) {
      p = std::filesystem::path(section.file()).parent_path() / p;
    }
    settings.recording = p.string();
    ResultStore check;
    Status loaded = check.Load(settings.recording, ResultStore::LoadScope::kEverything);
    if (loaded.absent()) section.Fail("recording", settings.recording + ": no such file");
    if (!loaded.ok()) section.Fail("recording", loaded.error().message);
  }
  settings.loopback = section.Bool("loopback").value_or(false);
  settings.max_splay_seconds =
      section.DurationSeconds("max_splay", 0, 86400).value_or(settings.max_splay_seconds);
  settings.skip_when_busy_fraction =
      section.Double("skip_when_busy_fraction", 0, 1).value_or(settings.skip_when_busy_fraction);
  settings.budget = section.Double("budget", 0, 1).value_or(settings.budget);

  ConfigNode path = section.Child("path");
  path.ExpectMapWithKeys({"enabled", "interval", "echo_timeout"});
  settings.path.enabled = path.Bool("enabled").value_or(true);
  settings.path.interval_seconds =
      path.DurationSeconds("interval", 1, 86400).value_or(settings.path.interval_seconds);
  settings.path.echo_timeout_seconds =
      path.DurationSeconds("echo_timeout", 0.1, 60).value_or(settings.path.echo_timeout_seconds);

  ConfigNode tcp = section.Child("tcp");
  tcp.ExpectMapWithKeys({"enabled", "round", "duration", "warmup", "streams", "single_stream",
                         "single_stream_every", "port", "calibration"});
  TcpLadderSettings& t = settings.tcp;
  t.enabled = tcp.Bool("enabled").value_or(tcp.present());
  t.round_seconds = tcp.DurationSeconds("round", 2, 86400).value_or(t.round_seconds);
  t.duration_seconds = tcp.DurationSeconds("duration", 0.2, 600).value_or(t.duration_seconds);
  t.warmup_seconds = tcp.DurationSeconds("warmup", 0, 60).value_or(t.warmup_seconds);
  t.streams = static_cast<uint32_t>(tcp.Int("streams", 1, 256).value_or(t.streams));
  t.single_stream = tcp.Bool("single_stream").value_or(t.single_stream);
  t.single_stream_every = static_cast<uint32_t>(
      tcp.Int("single_stream_every", 1, 1000).value_or(t.single_stream_every));
  t.port = static_cast<uint16_t>(tcp.Int("port", 1, 65535).value_or(t.port));
  ConfigNode calibration = tcp.Child("calibration");
  calibration.ExpectMapWithKeys({"enabled", "candidate", "interval"});
  TcpCalibrationSettings& cal = t.calibration;
  cal.enabled = calibration.Bool("enabled").value_or(cal.enabled);
  cal.candidate_seconds =
      calibration.DurationSeconds("candidate", 0.2, 10).value_or(cal.candidate_seconds);
  cal.interval_seconds =
      calibration.DurationSeconds("interval", 60, 30 * 86400).value_or(cal.interval_seconds);

  settings.mesh = ParseMeshSettings(section.Child("mesh"), t.enabled);

  ConfigNode rdma = section.Child("rdma");
  rdma.ExpectMapWithKeys(
      {"enabled", "qps", "size", "tx_depth", "duration", "warmup", "device", "max_region"});
  RdmaLadderSettings& rd = settings.rdma;
  rd.enabled = rdma.Bool("enabled").value_or(rdma.present());
  rd.qps = static_cast<uint32_t>(rdma.Int("qps", 1, 256).value_or(rd.qps));
  rd.size = static_cast<uint32_t>(rdma.Int("size", 1, 1 << 30).value_or(rd.size));
  rd.tx_depth = static_cast<uint32_t>(rdma.Int("tx_depth", 1, 8192).value_or(rd.tx_depth));
  rd.duration_seconds = rdma.DurationSeconds("duration", 0.2, 600).value_or(rd.duration_seconds);
  rd.warmup_seconds = rdma.DurationSeconds("warmup", 0, 60).value_or(rd.warmup_seconds);
  rd.device = rdma.String("device").value_or("");
  rd.max_region_bytes = static_cast<uint64_t>(
      rdma.Int("max_region", 1 << 20, int64_t{1} << 40).value_or(int64_t{1} << 30));
  if (settings.loopback && !t.enabled) {
    section.Fail("loopback", "loopback probing runs the TCP rungs: configure probes.tcp");
  }
  if (rd.enabled && !t.enabled) {
    rdma.Fail("enabled", "the RDMA rung runs in the TCP probe's plan rounds: configure probes.tcp");
  }
  // The plan round must fit every run it holds. Calibrated, each TCP rung runs
  // each direction in a session of its own, calibrating it first when due;
  // uncalibrated, one session measures both directions at once.
  double round_work = (t.single_stream ? 2 : 1) * (cal.enabled ? 2 : 1) *
                      (t.duration_seconds + t.warmup_seconds + TcpCalibrationSeconds(cal));
  if (rd.enabled) round_work += rd.duration_seconds + rd.warmup_seconds;
  if (t.enabled && round_work + 2 > t.round_seconds) {
    tcp.Fail("round", "a round must fit its runs (TCP rungs, and RDMA when enabled) plus 2s");
  }

  ConfigNode storage = section.Child("storage");
  storage.ExpectMapWithKeys(
      {"enabled", "directory", "interval", "duration", "warmup", "size", "reserve"});
  StorageLadderSettings& st = settings.storage;
  st.enabled = storage.Bool("enabled").value_or(storage.present());
  st.directory = storage.String("directory").value_or("");
  if (st.enabled && st.directory.empty()) {
    storage.Fail("directory", "the storage probe needs the directory to measure");
  }
  st.interval_seconds =
      storage.DurationSeconds("interval", 1, 7 * 86400).value_or(st.interval_seconds);
  st.duration_seconds = storage.DurationSeconds("duration", 0.1, 600).value_or(st.duration_seconds);
  st.warmup_seconds = storage.DurationSeconds("warmup", 0, 60).value_or(st.warmup_seconds);
  st.size_bytes = static_cast<uint64_t>(
      storage.Int("size", 1 << 20, int64_t{1} << 42).value_or(static_cast<int64_t>(st.size_bytes)));
  st.reserve_bytes = static_cast<uint64_t>(
      storage.Int("reserve", 0, int64_t{1} << 50).value_or(static_cast<int64_t>(st.reserve_bytes)));

  ConfigNode responder = section.Child("responder");
  responder.ExpectMapWithKeys({"enabled", "listen", "allow", "max_streams", "max_duration"});
  ResponderSettings& r = settings.responder;
  r.enabled = responder.Bool("enabled").value_or(t.enabled);
  r.listen = responder.StringList("listen").value_or(std::vector<std::string>{});
  r.allow = responder.StringList("allow").value_or(std::vector<std::string>{});
  for (const auto& cidr : r.allow) {
    if (auto parsed = probe::ParseCidr(cidr); !parsed.ok()) {
      responder.Fail("allow", parsed.error().message);
    }
  }
  r.max_streams =
      static_cast<uint32_t>(responder.Int("max_streams", 1, 1024).value_or(r.max_streams));
  r.max_duration_seconds =
      responder.DurationSeconds("max_duration", 1, 3600).value_or(r.max_duration_seconds);

  if (t.enabled || r.enabled) {
    auto file = section.String("secret_file");
    if (!file) {
      section.Fail("secret_file", "the TCP probe and the responder need a shared secret file");
    }
    auto secret = probe::LoadSecretFile(*file);
    if (!secret.ok()) section.Fail("secret_file", secret.error().message);
    t.secret = *secret;
  }
  return settings;
}

ProbeRuntime::ProbeRuntime(const Fleet& fleet, const ProbeSettings& settings, const SysRoot& root)
    : fleet_(fleet),
      settings_(settings),
      root_(root),
      budget_(settings.budget),
      agreement_(fleet),
      pair_comparisons_(PairComparisonSlots()),
      storage_comparisons_(StorageComparisonSlots()) {
  store_.SetBestWindow(settings_.best_window_seconds);
  std::vector<ProbeTask> tasks;
  if (!settings_.recording.empty()) {
    // A replay: the recorded results are the whole truth, nothing runs.
    settings_.responder.enabled = false;
    Status loaded = store_.Load(settings_.recording, ResultStore::LoadScope::kEverything);
    if (!loaded.ok())
      log::Warn("cannot replay the probe recording", {{"err", loaded.error().message}});
    scheduler_ = std::make_unique<Scheduler>(std::move(tasks), clock_, Seconds(0), 0);
    return;
  }
  const FleetNode self = fleet_.Self();
  if (settings_.mesh.enabled) {
    mesh_ = PathMesh::ForFleet(fleet_, settings_.mesh, settings_.tcp.port);
    if (mesh_) {
      for (const MeshPeer& peer : mesh_->peers()) mesh_peers_.push_back(peer.name);
    }
  }
  auto skip = [this]() { return FabricBusy(); };
  // The topology-aware plan (racks and planes from the fleet config; the
  // plain circle method without them).
  std::vector<PlanMember> members;
  std::vector<std::string> names;
  std::vector<std::string> racks;
  for (const FleetNode& node : fleet_.nodes) {
    members.push_back({node.rack, node.plane});
    names.push_back(node.name);
    racks.push_back(node.rack);
  }
  auto plan = std::make_shared<const TopologyPlan>(members);
  // The bisection judges this node's plan results against the path's line
  // rate, which each run reads; this node's own where a peer reports none.
  std::unique_ptr<Bisection> bisection;
  if (settings_.tcp.enabled && !settings_.loopback && fleet_.nodes.size() > 1) {
    double line = 0;
    if (auto mbps = self.interface.empty() ? std::nullopt : ReadNetSpeedMbps(root_, self.interface);
        mbps && *mbps > 0) {
      line = static_cast<double>(*mbps) * 125000;  // bytes per second
    } else {
      // veth, virtio: no line rate to judge "low" against. A failed run is low
      // at any line rate, so the bisection still places failures.
      log::Info("bisection judges failed runs only: the fabric interface reports no speed",
                {{"interface", self.interface}});
    }
    bisection = std::make_unique<Bisection>(racks, fleet_.SelfIndex(), line);
  }
  detail_ = std::make_unique<ProbeDetailSet>(names, racks, fleet_.SelfIndex(), plan,
                                             settings_.tcp.round_seconds,
                                             settings_.path.interval_seconds, std::move(bisection));
  for (const FleetNode& peer : fleet_.nodes) {
    if (peer.name == self.name || !settings_.path.enabled) continue;
    for (const auto& key : KeysOf(Rung::kPath, peer.name)) {
      store_.Expect(key, settings_.path.interval_seconds);
    }
    if (!detail_->all_detail()) continue;  // The rotation's task below checks them.
    // A small fleet: every peer's path every interval, a task each.
    ProbeTask task;
    task.probe = std::string(probe::RungLabel(Rung::kPath));
    task.target = peer.name;
    task.timing.interval = Seconds(settings_.path.interval_seconds);
    task.timeout = Seconds(kJumboEchoAttempts * settings_.path.echo_timeout_seconds + 5);
    task.run = [this, self, peer](const CancelToken& token) {
      const ProbeOutcome outcome = CheckPath(self, peer, token);
      Persist();
      return outcome;
    };
    tasks.push_back(std::move(task));
  }
  if (settings_.path.enabled && !detail_->all_detail()) {
    // A fleet above the detail bound: one task checks, every interval, the
    // detail peers and one member of a third of the racks in turn.
    ProbeTask task;
    task.probe = std::string(probe::RungLabel(Rung::kPath));
    task.target = "rotation";
    task.timing.interval = Seconds(settings_.path.interval_seconds);
    task.timeout = Seconds(settings_.path.interval_seconds);
    task.run = [this, self](const CancelToken& token) { return RunPathRotation(self, token); };
    tasks.push_back(std::move(task));
  }
  // Loopback: this node's own responder is the only peer, probed every round.
  // This node under the target name "loopback" (same address, interface, MTU).
  FleetNode loopback_peer = self;
  loopback_peer.name = "loopback";
  if (settings_.tcp.enabled && (fleet_.nodes.size() > 1 || settings_.loopback)) {
    for (size_t index = 0; index < fleet_.nodes.size(); ++index) {
      const FleetNode& peer = fleet_.nodes[index];
      if (peer.name == self.name && !settings_.loopback) continue;
      // Each ordered pair meets once per its planned period (loopback: every round;
      // intra-rack pairs more often than pairs across racks); a comparison run waits at
      // most one turn of its rotation of those meetings. Peers the plan never pairs with
      // this node (another plane) get no records.
      const uint64_t rounds =
          settings_.loopback ? 1 : plan->PairPeriodRounds(fleet_.SelfIndex(), index);
      if (rounds == 0) continue;
      const double pair_period = settings_.tcp.round_seconds * static_cast<double>(rounds);
      // A comparison turn every single_stream_every meetings.
      const double comparison_period =
          pair_period * std::max<uint32_t>(settings_.tcp.single_stream_every, 1) *
          static_cast<double>(pair_comparisons_.PeriodInOpportunities());
      const std::string target = settings_.loopback ? loopback_peer.name : peer.name;
      for (const auto& key : TcpLadderKeys(settings_.tcp, target)) {
        const double every = key.probe == Rung::kTcpSingle
                                 ? std::max<uint32_t>(settings_.tcp.single_stream_every, 1)
                                 : 1;
        store_.Expect(key, pair_period * every);
      }
      if (settings_.rdma.enabled) {
        for (const auto& key : RdmaLadderKeys(target)) store_.Expect(key, pair_period);
      }
      for (Rung rung : {Rung::kTcpMultiCopy, Rung::kTcpMultiSweep}) {
        for (const auto& key : KeysOf(rung, target)) store_.Expect(key, comparison_period);
      }
    }
    // One run per plan round, aligned to the wall clock so every node agrees
    // on the round number: the round's pairing decides the peer, if any.
    const double round = settings_.tcp.round_seconds;
    const double now = clock_.WallSeconds();
    std::uniform_real_distribution<double> offset(0, 0.2 * round);
    std::random_device seed;
    ProbeTask task;
    // The plan round's task runs every network rung; it counts its runs under tcp_multi.
    task.probe = std::string(probe::RungLabel(Rung::kTcpMulti));
    task.target = "plan";
    task.timing.interval = Seconds(round);
    task.timing.jitter_fraction = 0;
    task.timing.first_due_seconds = (std::floor(now / round) + 1) * round - now + offset(seed);
    task.timeout = Seconds(round);
    task.skip_reason = skip;
    task.run = [this, self, round, loopback_peer, plan](const CancelToken& token) {
      const uint64_t number = static_cast<uint64_t>(std::floor(clock_.WallSeconds() / round));
      auto planned = plan->Round(fleet_.SelfIndex(), number);
      if (!settings_.loopback && (!planned || !planned->initiator)) return ProbeOutcome::kIdle;
      const FleetNode& peer = settings_.loopback ? loopback_peer : fleet_.nodes[planned->peer];
      const probe::ProbeContext context = Context(token);
      BudgetSpan spent(budget_, clock_, moved_bytes_);
      const double start = clock_.WallSeconds();
      // A single node's loopback ladder is whole at the first round.
      const uint64_t meeting =
          meetings_
              .try_emplace(peer.name, settings_.loopback
                                          ? 0
                                          : FirstMeeting(settings_.tcp, self.name, peer.name))
              .first->second;
      const bool with_single = SingleStreamDue(settings_.tcp, meeting);
      ProbeOutcome outcome = RunTcpLadder(settings_.tcp, self, peer, context, store_, with_single);
      // A meeting whose single-stream run did not happen keeps the turn.
      const bool ran =
          with_single ? outcome == ProbeOutcome::kSuccess : outcome != ProbeOutcome::kBusy;
      if (ran && !token.cancelled()) ++meetings_[peer.name];
      if (detail_->bisecting()) {
        // The round's result (a failure as 0) is the bisection's evidence.
        if (auto sent = SendResultSince(store_, peer.name, start)) {
          detail_->ObservePlan(planned->peer, *sent, clock_.WallSeconds());
        }
      }
      if (settings_.rdma.enabled && outcome != ProbeOutcome::kBusy && !token.cancelled()) {
        ProbeOutcome rdma = RunRdmaLadder(
            settings_.rdma, settings_.tcp.secret, settings_.tcp.port, self, peer, context, store_,
            [this](const probe::RdmaProbeResult& r) {
              budget_.SpentRdma(ProbeRole::kRequester, r.device, r.port, r.total_bytes);
            });
        if (outcome == ProbeOutcome::kSuccess) outcome = rdma;
      }
      if (outcome != ProbeOutcome::kBusy && !token.cancelled() &&
          PairComparisonTurn(settings_.tcp, meeting)) {
        RunPairComparison(self, peer, start, token);
      }
      Persist();
      return outcome;
    };
    tasks.push_back(std::move(task));
    if (detail_->bisecting()) {
      // Two retest slots per round, at 1/3 and 2/3 of it (+ up to 5%), clear
      // of the plan run at its start. The scheduler runs one task at a time
      // on one thread, so a retest never overlaps this node's plan run; a peer
      // serving someone else answers BUSY and the retest backs off.
      for (double slot : {round / 3, 2 * round / 3}) {
        ProbeTask retest;
        retest.probe = std::string(probe::RungLabel(Rung::kTcpMulti));
        retest.target = "retest";
        retest.timing.interval = Seconds(round);
        retest.timing.jitter_fraction = 0;
        std::uniform_real_distribution<double> retest_offset(0, 0.05 * round);
        retest.timing.first_due_seconds =
            (std::floor(now / round) + 1) * round - now + slot + retest_offset(seed);
        retest.timeout = Seconds(round / 3);
        retest.run = [this, self](const CancelToken& token) { return RunRetest(self, token); };
        tasks.push_back(std::move(retest));
      }
    }
  }
  if (settings_.storage.enabled) {
    const double interval = settings_.storage.interval_seconds;
    for (const auto& key : StorageLadderKeys(settings_.storage)) store_.Expect(key, interval);
    for (size_t i = 0; i < storage_comparisons_.size(); ++i) {
      for (Rung rung : storage_comparisons_.slot(i)) {
        for (const auto& key : KeysOf(rung, settings_.storage.directory)) {
          store_.Expect(key, interval * static_cast<double>(storage_comparisons_.size()));
        }
      }
    }
    ProbeTask task;
    task.probe = "storage";
    task.target = settings_.storage.directory;
    task.timing.interval = Seconds(settings_.storage.interval_seconds);
    // The two rungs and one comparison slot (two runs at most), each with its file set-up.
    task.timeout =
        Seconds(8 * (settings_.storage.duration_seconds + settings_.storage.warmup_seconds) + 240);
    task.run = [this](const CancelToken& token) {
      BudgetSpan spent(budget_, clock_, moved_bytes_);
      ProbeOutcome outcome = RunStorageLadder(settings_.storage, Context(token), store_);
      if (!token.cancelled()) RunStorageComparison(token);
      Persist();
      return outcome;
    };
    tasks.push_back(std::move(task));
  }
  if (!settings_.state_file.empty()) {
    Status loaded = store_.Load(settings_.state_file);
    if (!loaded.ok() && !loaded.absent()) {
      log::Warn("ignoring the probe state file", {{"err", loaded.error().message}});
    }
  }
  scheduler_ = std::make_unique<Scheduler>(
      std::move(tasks), clock_, Seconds(settings_.max_splay_seconds), std::random_device{}());
}

ProbeRuntime::~ProbeRuntime() { Stop(); }

void ProbeRuntime::Adopt(const ProbeRuntime& previous) {
  if (!settings_.recording.empty()) return;  // A replay shows the recording alone.
  Status taken = store_.LoadText(previous.store_.SaveText(), "the results before the reload");
  if (!taken.ok())
    log::Warn("cannot keep the results over the reload", {{"err", taken.error().message}});
  budget_.Adopt(previous.budget_);
  for (const auto& [peer, meetings] : previous.meetings_) meetings_.insert({peer, meetings});
}

Status ProbeRuntime::Start() {
  if (settings_.responder.enabled) {
    probe::ResponderOptions options;
    const FleetNode& self = fleet_.Self();
    std::vector<std::string> listen = settings_.responder.listen;
    if (listen.empty()) {
      listen.push_back(self.address.find(':') == std::string::npos ? self.address
                                                                   : "[" + self.address + "]");
    }
    for (const auto& address : listen) {
      auto parsed = probe::ParseHostPort(address, settings_.tcp.port);
      if (!parsed.ok()) return MakeError("probes.responder.listen: " + parsed.error().message);
      options.listen.push_back(*parsed);
    }
    std::vector<std::string> allow = settings_.responder.allow;
    if (allow.empty()) {
      for (const auto& node : fleet_.nodes) {
        allow.push_back(node.address +
                        (node.address.find(':') == std::string::npos ? "/32" : "/128"));
      }
    }
    for (const auto& cidr : allow) {
      auto parsed = probe::ParseCidr(cidr);
      if (!parsed.ok()) return MakeError("probes.responder.allow: " + parsed.error().message);
      options.allow.push_back(*parsed);
    }
    options.secret = settings_.tcp.secret;
    options.fleet_digest = fleet_.digest;
    // A requester without a digest is an older version or a probe by hand (fabric_probe
    // tcp): served as before, and not listed, since its own exporter's requests (if any)
    // say what it holds.
    options.on_requester_fleet = [this](const std::string& address, const std::string& digest) {
      if (!digest.empty()) agreement_.Observe(address, digest);
    };
    options.max_streams = settings_.responder.max_streams;
    options.max_duration = std::chrono::milliseconds(
        static_cast<int64_t>(settings_.responder.max_duration_seconds * 1000));
    options.root = root_;
    // Serving a peer's probe counts against this node's budget too.
    options.on_session_end = [this](double seconds, uint64_t bytes) {
      budget_.Spent(clock_.WallSeconds(), seconds, ProbeRole::kResponder, bytes);
    };
    if (settings_.rdma.enabled) {
      probe::AddRdmaSessionKind(options, probe::DefaultRdmaBackend(),
                                {settings_.rdma.device, settings_.rdma.max_region_bytes});
    }
    responder_ = std::make_unique<probe::Responder>(std::move(options));
    if (Status started = responder_->Start(); !started.ok()) {
      return MakeError("probe responder: " + started.error().message);
    }
  }
  scheduler_->Start();
  if (mesh_) mesh_->Start();
  return OkStatus();
}

void ProbeRuntime::Stop() {
  if (mesh_) mesh_->Stop();
  scheduler_->Stop();
  if (responder_) responder_->Stop();
}

std::optional<std::string> ProbeRuntime::FabricBusy() {
  const std::string& interface = fleet_.Self().interface;
  if (settings_.skip_when_busy_fraction <= 0 || interface.empty()) return std::nullopt;
  auto speed_mbps = ReadNetSpeedMbps(root_, interface);
  if (!speed_mbps) return std::nullopt;  // Unknown speed (veth, virtio).
  auto before = ReadNetByteCounters(root_, interface);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  auto after = ReadNetByteCounters(root_, interface);
  if (!before || !after) return std::nullopt;
  const double line = static_cast<double>(*speed_mbps) * 125000;  // bytes per second
  const double busiest = static_cast<double>(
      std::max(after->rx_bytes - before->rx_bytes, after->tx_bytes - before->tx_bytes));
  if (busiest > settings_.skip_when_busy_fraction * line) return "fabric_busy";
  return std::nullopt;
}

probe::ProbeContext ProbeRuntime::Context(const CancelToken& token) {
  return probe::ProbeContext{root_,
                             token.stop_token(),
                             clock_,
                             &moved_bytes_,
                             fleet_.digest,
                             [this](const std::string& peer, const std::string& digest) {
                               agreement_.Observe(peer, digest);
                             }};
}

void ProbeRuntime::Persist() {
  if (settings_.state_file.empty()) return;
  Status saved = store_.Save(settings_.state_file);
  if (!saved.ok()) log::Warn("cannot save the probe state", {{"err", saved.error().message}});
}

void ProbeRuntime::RunPairComparison(const FleetNode& self, const FleetNode& peer, double since,
                                     const CancelToken& token) {
  // The rung's own sessions (direction pattern, block size and mode per
  // direction): a comparison in another pattern would measure the host's CPU.
  const auto sessions = TcpRungSessions(Rung::kTcpMulti, settings_.tcp, peer.name, store_);
  if (!sessions) return;  // Not calibrated yet: the rung has not run.
  // And its results of this meeting, one of the two modes the copy run compares.
  auto results = RungResultsSince(store_, peer.name, since);
  if (!results) return;
  const std::vector<uint32_t> sweep =
      SweepStreamCounts(SweepStreamLimit(*sessions, settings_.responder.max_streams));
  auto applies = [&](const ComparisonRotation::Slot& slot) {
    if (slot.front() != Rung::kTcpMultiSweep) return true;
    // The sweep only while this pair's last tcp_multi result asks for one.
    for (const auto& key : KeysOf(Rung::kTcpMulti, peer.name)) {
      if (auto record = store_.Find(key); record && WantsSweep(*record)) return true;
    }
    return false;
  };
  auto due = pair_comparisons_.Due(peer.name, applies);
  if (!due) return;
  const Rung rung = pair_comparisons_.slot(*due).front();
  const double expected = rung == Rung::kTcpMultiSweep ? SweepSeconds(settings_.tcp, sweep.size())
                                                       : CopyComparisonSeconds(settings_.tcp);
  const double left = std::chrono::duration<double>(token.deadline() - clock_.Now()).count();
  if (expected + 2 > left) return;  // The plan slot ends first: the peer's next round is due.
  const double now = clock_.WallSeconds();
  if (!budget_.Allows(now, expected)) {
    log::Info("comparison run deferred: the probe budget is spent",
              {{"probe", std::string(probe::RungLabel(rung))},
               {"peer", peer.name},
               {"busy_ratio", std::to_string(budget_.BusyRatio(now))}});
    return;
  }
  const probe::ProbeContext context = Context(token);
  if (rung == Rung::kTcpMultiSweep) {
    TcpSweepProbe run(settings_.tcp, *sessions, sweep, self, peer);
    RunAndRecord(run, context, store_);
  } else {
    TcpCopyProbe run(settings_.tcp, *sessions, std::move(*results), self, peer);
    RunAndRecord(run, context, store_);
  }
  if (!token.cancelled()) pair_comparisons_.Ran(peer.name, *due);
}

void ProbeRuntime::RunStorageComparison(const CancelToken& token) {
  const std::string& directory = settings_.storage.directory;
  auto due =
      storage_comparisons_.Due(directory, [](const ComparisonRotation::Slot&) { return true; });
  if (!due) return;
  const ComparisonRotation::Slot& slot = storage_comparisons_.slot(*due);
  double expected = 0;
  for (Rung rung : slot) expected += StorageComparisonSeconds(rung, settings_.storage);
  const double now = clock_.WallSeconds();
  if (!budget_.Allows(now, expected)) {
    log::Info("comparison run deferred: the probe budget is spent",
              {{"probe", std::string(probe::RungLabel(slot.front()))},
               {"directory", directory},
               {"busy_ratio", std::to_string(budget_.BusyRatio(now))}});
    return;
  }
  const probe::ProbeContext context = Context(token);
  for (Rung rung : slot) {
    if (token.cancelled()) return;
    StorageComparisonProbe run(rung, settings_.storage);
    RunAndRecord(run, context, store_);
  }
  if (!token.cancelled()) storage_comparisons_.Ran(directory, *due);
}

ProbeOutcome ProbeRuntime::CheckPath(const FleetNode& self, const FleetNode& peer,
                                     const CancelToken& token) {
  const auto echo_timeout =
      std::chrono::milliseconds(static_cast<int64_t>(settings_.path.echo_timeout_seconds * 1000));
  const double start = clock_.WallSeconds();
  // Half of what the path proved uncontended: traffic at or above it fills the path's queues.
  std::optional<double> saturated;
  for (const auto& key : KeysOf(Rung::kTcpMulti, peer.name)) {
    if (auto record = store_.Find(key); record && record->uncontended) {
      saturated = std::max(saturated.value_or(0), record->uncontended->bytes_per_second / 2);
    }
  }
  PathProbe path(self, peer, echo_timeout, saturated);
  // Shutdown cutting the check short records nothing: that says nothing about the path.
  const ProbeOutcome outcome = RunAndRecord(path, Context(token), store_);
  if (auto index = detail_->IndexOf(peer.name)) {
    for (const auto& key : KeysOf(Rung::kPath, peer.name)) {
      if (auto record = store_.Find(key); record && record->timestamp_seconds >= start) {
        detail_->PathChecked(*index, PathCheckFailed(*record));
      }
    }
  }
  return outcome;
}

ProbeOutcome ProbeRuntime::RunPathRotation(const FleetNode& self, const CancelToken& token) {
  for (size_t peer : detail_->PathTargets(clock_.WallSeconds())) {
    if (token.ShouldStop()) break;  // The next interval's run is due.
    CheckPath(self, fleet_.nodes[peer], token);
  }
  Persist();
  return token.cancelled() ? ProbeOutcome::kFailure : ProbeOutcome::kSuccess;
}

ProbeOutcome ProbeRuntime::RunRetest(const FleetNode& self, const CancelToken& token) {
  const double now = clock_.WallSeconds();
  auto index = detail_->RetestPeer(now);
  if (!index) return ProbeOutcome::kIdle;
  const FleetNode& peer = fleet_.nodes[*index];
  // The multi-stream rung alone, each direction calibrated as in a plan round.
  const TcpCalibrationSettings& cal = settings_.tcp.calibration;
  const double expected =
      (cal.enabled ? 2 : 1) * (TcpRunSeconds(settings_.tcp) + TcpCalibrationSeconds(cal));
  const double round = settings_.tcp.round_seconds;
  const double next_round = (std::floor(now / round) + 1) * round;
  const double left = std::min(
      next_round - now, std::chrono::duration<double>(token.deadline() - clock_.Now()).count());
  // Too late in the round: the pending retest waits for the next slot.
  if (expected + 2 > left) return ProbeOutcome::kIdle;
  if (!budget_.Allows(now, expected)) {
    log::Info("retest deferred: the probe budget is spent",
              {{"peer", peer.name}, {"busy_ratio", std::to_string(budget_.BusyRatio(now))}});
    return ProbeOutcome::kIdle;
  }
  if (auto busy = FabricBusy()) {
    log::Info("probe skipped", {{"probe", "tcp_multi/retest"}, {"reason", *busy}});
    return ProbeOutcome::kIdle;
  }
  BudgetSpan spent(budget_, clock_, moved_bytes_);
  const double start = clock_.WallSeconds();
  ProbeOutcome outcome =
      RunTcpRung(Rung::kTcpMulti, settings_.tcp, self, peer, Context(token), store_);
  if (auto sent = SendResultSince(store_, peer.name, start)) {
    detail_->ObserveRetest(*index, *sent, clock_.WallSeconds());
    log::Info("bisection retest",
              {{"peer", peer.name},
               {"send_bytes_per_second", std::to_string(sent->bytes_per_second)},
               {"path_line_bytes_per_second", std::to_string(sent->path_line_bytes_per_second)}});
  }
  Persist();
  return outcome;
}

bool ProbeRuntime::PublishesPeerInfo() const { return detail_ && !detail_->all_detail(); }

std::unique_ptr<Collector> ProbeRuntime::MakeCollector() const {
  if (detail_) {
    return MakeProbeResultsCollector(
        store_, [this] { return scheduler_->Stats(); },
        [this] {
          SystemClock wall;
          return ScrapePolicy(*detail_, fleet_, mesh_peers_, wall.WallSeconds());
        },
        [this] {
          SystemClock wall;
          return BudgetState{settings_.budget, budget_.BusyRatio(wall.WallSeconds()),
                             budget_.Total(ProbeRole::kRequester),
                             budget_.Total(ProbeRole::kResponder)};
        });
  }
  return MakeProbeResultsCollector(
      store_, [this] { return scheduler_->Stats(); },
      [this] {
        // The budget and the time spent are this node's configuration and
        // activity: a replayed recording spends nothing.
        SystemClock wall;
        return BudgetState{settings_.budget, budget_.BusyRatio(wall.WallSeconds()),
                           budget_.Total(ProbeRole::kRequester),
                           budget_.Total(ProbeRole::kResponder)};
      });
}

std::unique_ptr<Collector> ProbeRuntime::MakeFleetCollector() const {
  return settings_.recording.empty() ? agreement_.MakeCollector() : nullptr;
}

std::unique_ptr<Collector> ProbeRuntime::MakeMeshCollector() const {
  return mesh_ ? mesh_->MakeCollector() : nullptr;
}

}  // namespace fabric
