// fabric_probe ladder: every available probe once against one peer (TCP with N streams and
// with one, RDMA, and storage when asked), then the ladder as the exporter's page draws it:
// the same rung runners write the same results, and the same model turns them into layers, the
// binding layer, verdicts and shapes.
#include "exporter/probe_cli/ladder_command.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "active-probes/cli/arg_parse.h"
#include "active-probes/control/conn.h"
#include "active-probes/probe/error_kinds.h"
#include "active-probes/probe/probe.h"
#include "common/clock.h"
#include "common/flags.h"
#include "common/json.h"
#include "common/log.h"
#include "common/parse/ip_address.h"
#include "common/read/sysroot.h"
#include "common/stop_token.h"
#include "common/thread_name.h"
#include "exporter/collectors/collector_table.h"
#include "exporter/config/fleet.h"
#include "exporter/ladder/ladder_facts.h"
#include "exporter/ladder/ladder_text.h"
#include "exporter/scheduled_probes/rdma_ladder_probe.h"
#include "exporter/scheduled_probes/storage_ladder_probe.h"
#include "exporter/scheduled_probes/tcp_ladder_probe.h"

namespace fabric::probe {
namespace {

constexpr char kHelp[] =
    "Usage: fabric_probe ladder --peer HOST[:PORT] --secret-file FILE [--storage DIR] [FLAGS]\n"
    "\n"
    "Runs every available probe once against the responder on HOST (`fabric_probe serve` or a\n"
    "fabric_exporter with probes): N-stream TCP and 1-stream TCP in both directions, RDMA WRITE\n"
    "(reported as \"no RDMA device\" on hosts without one), and with --storage a direct-I/O read\n"
    "and write of DIR. Then prints the ladder: one row per layer with a bar against the line\n"
    "rate of the interface the traffic left through (scaled to the best layer when it has no\n"
    "speed, e.g. loopback or veth), the PCIe link of that NIC, the binding layer, the\n"
    "self-check verdicts and any bottleneck shape in words: the table the exporter's page at /\n"
    "shows, from the same code. Progress goes to stderr when it is a terminal.\n"
    "\n"
    "With --replay FILE it runs no probe: the ladder is built from recorded results (the\n"
    "exporter's state-file format, as probes.recording replays it) of the peer --peer names,\n"
    "with the interface, PCIe and socket-buffer facts read under --path.procfs and\n"
    "--path.sysfs, so a recording reads the same here as on the exporter's page.\n"
    "\n"
    "NFS mounts whose server is the --peer name or host are shown as the NFS client layer with\n"
    "their transport and rsize/wsize; with --nfs-requested-options FILE (fstab format, as the\n"
    "exporter's collectors.nfs.requested_options_file) a size below what was asked is named.\n"
    "With --collective-directory DIR (the exporter's collectors.collective.directory) the\n"
    "NCCL collectives layer shows the best bus bandwidth across nodes from NCCL Inspector's\n"
    "textfiles and nccl-tests' JSON there, against the RDMA rung.\n"
    "\n"
    "The real-transfers layer is the bulk TCP traffic with the peer while the probes ran (the\n"
    "exporter's flows collector, looked at before the first probe and after the last), by the\n"
    "application that moves it (ssh, rsync, socat...; the probes' own flows left out); a\n"
    "transfer far below the N-stream TCP rung is named in that application's words.\n"
    "\n"
    "The RDMA queue pairs layer names the processes whose connected queue pairs the kernel's\n"
    "RDMA resource tracking places on the path to the peer (their rdma_cm id's destination), and\n"
    "those connected without rdma_cm, which it places on none; --rdma-restrack-recording DIR\n"
    "reads recorded RDMA netlink dumps (as collectors.rdma.restrack_recording) instead of the\n"
    "kernel.\n"
    "\n"
    "Exit status: 0 the ladder has at least one measured probe layer; 1 every probe failed (the\n"
    "ladder is still printed, with the reasons); 2 usage error; 130 interrupted by SIGINT or\n"
    "SIGTERM (the current TCP, RDMA or storage run stops, a storage run removes its files, and "
    "the\n"
    "ladder of what finished is printed).\n\n";

double Seconds(const std::string& flag, const FlagSet& flags, Status& status) {
  auto d = ParseDurationFlag(flag, flags.GetString(flag));
  if (!d.ok()) {
    if (status.ok()) status = Unexpected{d.error()};
    return 0;
  }
  return static_cast<double>(d->count()) / 1000;
}

// A one-line progress display on stderr: the step, a bar of elapsed against expected time.
// Silent unless stderr is a terminal, so scripts and logs get only the result.
class Progress {
 public:
  explicit Progress(int steps) : steps_(steps), enabled_(isatty(STDERR_FILENO) == 1) {}
  ~Progress() { Stop(); }

  void Begin(const std::string& label, double expected_seconds) {
    if (!enabled_) return;
    Stop();
    ++step_;
    label_ = label;
    expected_ = std::max(expected_seconds, 0.1);
    start_ = std::chrono::steady_clock::now();
    running_ = true;
    thread_ = std::thread([this] {
      NameThisThread("progress");
      std::unique_lock<std::mutex> lock(mutex_);
      while (running_) {
        Draw();
        wake_.wait_for(lock, std::chrono::milliseconds(200));
      }
    });
  }

  void End(const std::string& outcome) {
    if (!enabled_) return;
    Stop();
    std::fprintf(stderr, "\r\033[K  [%d/%d] %-14s %s\n", step_, steps_, label_.c_str(),
                 outcome.c_str());
  }

 private:
  void Draw() {
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    int filled = static_cast<int>(std::lround(std::min(1.0, elapsed / expected_) * 20));
    std::string bar;
    for (int i = 0; i < 20; ++i) bar += i < filled ? "█" : "░";
    std::fprintf(stderr, "\r\033[K  [%d/%d] %-14s %s %4.1f s of ~%.0f s", step_, steps_,
                 label_.c_str(), bar.c_str(), elapsed, expected_);
    std::fflush(stderr);
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      running_ = false;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  const int steps_;
  const bool enabled_;
  int step_ = 0;
  std::string label_;
  double expected_ = 1;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool running_ = false;
  std::thread thread_;
};

// "92.1 Gbit/s" for the rung's worse direction, or why it has none.
std::string Outcome(const ResultStore& store, Rung rung) {
  std::optional<double> worst;
  std::string failure;
  for (const auto& r : store.Snapshot()) {
    if (r.key.probe != rung) continue;
    if (!r.success)
      failure = r.failure_reason + (r.failure_detail.empty() ? "" : ": ") + r.failure_detail;
    auto it = r.values.find(probe::ProbeValue::kThroughput);
    if (r.success && it != r.values.end() && (!worst || it->second < *worst)) worst = it->second;
  }
  if (worst) return ladder::FormatRate(*worst);
  return failure.empty() ? "no result" : "failed (" + failure + ")";
}

// The real transfers with the peer while the ladder runs: the exporter's flows collector, looked
// at before the first probe and again after the last, so each application's goodput is its
// average over the run (a per-file loop counts whole, its closed connections from the kernel's
// destroy messages) and the probes' own flows are left out by the responder's port.
class TransfersDuringRun {
 public:
  // `peer` is the ladder's peer name, `host` what the probes dial.
  TransfersDuringRun(const SysRoot& root, const std::string& peer, const std::string& host,
                     uint16_t probe_port) {
    auto address = ResolveAddressText(host);
    if (!address.ok()) return;  // The TCP rung says why it cannot reach the peer.
    auto canonical = ParseIpAddress(*address);
    if (!canonical.ok()) return;
    peer_names_[canonical->ToString()] = peer;
    fleet_.self = "this host";
    fleet_.nodes.push_back(FleetNode{peer, canonical->ToString(), "", 0});
    for (const auto& spec : CollectorTable()) {
      if (spec.name == "flows") flows_ = spec.factory({root, settings_, &fleet_, probe_port});
    }
    MetricSink first;
    if (flows_ == nullptr || !flows_->Collect(first).ok()) flows_.reset();
    started_ = std::chrono::steady_clock::now();
  }

  // The second look, into `sink`; the seconds the run took. The collector serves a look less
  // than a second after the last one from that one, so a shorter run waits out the second.
  double Finish(MetricSink& sink) {
    if (flows_ == nullptr) return 0;
    std::this_thread::sleep_until(started_ + std::chrono::seconds(1));
    MetricSink own;
    if (!flows_->Collect(own).ok()) return 0;
    sink.MergeFrom(std::move(own));
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  }

  const std::map<std::string, std::string>& peer_names() const { return peer_names_; }

 private:
  Fleet fleet_;
  ConfigNode settings_;
  std::unique_ptr<Collector> flows_;
  std::map<std::string, std::string> peer_names_;  // The peer's address -> its name.
  std::chrono::steady_clock::time_point started_;
};

// The interface, PCIe, socket-buffer, NFS and RDMA queue-pair facts of this host (or of the trees
// under `root`), from the exporter's own netdev, pcie, sockbuf, nfs and rdma collectors, so they
// agree with what it publishes, and with `transfers` its real transfers to the peer during the
// run. `peer` (a name or HOST[:PORT]) stands for the fleet: an NFS mount whose server, or an
// rdma_cm id whose destination, is that name or host is on the path; `nfs_requested` is the nfs
// collector's requested_options_file, `rdma_recording` the rdma collector's restrack_recording
// (empty: none).
ladder::PassiveFacts HostFacts(const SysRoot& root, const std::string& interface,
                               const std::string& peer, const std::string& nfs_requested,
                               const std::string& collective_directory,
                               const std::string& rdma_recording,
                               TransfersDuringRun* transfers = nullptr) {
  std::string host = peer;
  if (!host.empty() && host.front() == '[') {
    host = host.substr(1, host.find(']') - 1);
  } else if (std::count(host.begin(), host.end(), ':') == 1) {
    host = host.substr(0, host.find(':'));
  }
  Fleet fleet;
  fleet.nodes.push_back(FleetNode{peer, host, "", 0});
  ConfigNode empty;
  ConfigNode nfs = ConfigNode::LoadString(
      nfs_requested.empty() ? "{}" : "{requested_options_file: " + JsonString(nfs_requested) + "}",
      "--nfs-requested-options");
  ConfigNode collective = ConfigNode::LoadString(
      collective_directory.empty() ? "{}" : "{directory: " + JsonString(collective_directory) + "}",
      "--collective-directory");
  ConfigNode rdma = ConfigNode::LoadString(
      rdma_recording.empty() ? "{}" : "{restrack_recording: " + JsonString(rdma_recording) + "}",
      "--rdma-restrack-recording");
  MetricSink sink;
  for (const auto& spec : CollectorTable()) {
    if (spec.name != "netdev" && spec.name != "pcie" && spec.name != "sockbuf" &&
        spec.name != "nfs" && spec.name != "collective" && spec.name != "rdma") {
      continue;
    }
    MetricSink own;
    const ConfigNode& settings = spec.name == "nfs"          ? nfs
                                 : spec.name == "collective" ? collective
                                 : spec.name == "rdma"       ? rdma
                                                             : empty;
    auto collector = spec.factory({root, settings, &fleet});
    if (collector->Collect(own).ok()) sink.MergeFrom(std::move(own));
  }
  if (transfers == nullptr) return ladder::FactsFromFamilies(sink.TakeSorted(), interface, {});
  const double seconds = transfers->Finish(sink);
  ladder::PassiveFacts facts =
      ladder::FactsFromFamilies(sink.TakeSorted(), interface, transfers->peer_names());
  // One look over the whole run: the shapes say over how long.
  facts.windowed.window_seconds = seconds;
  return facts;
}

// Blocks SIGINT, SIGTERM and SIGUSR1 in every thread (the probes start their own), for the
// one thread that sigwaits them.
sigset_t BlockShutdownSignals() {
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &mask, nullptr);
  return mask;
}

// The fabric interface: --interface, else the one the TCP probe's traffic left through.
std::string InterfaceOf(const std::vector<ProbeRecord>& records, const std::string& flag) {
  if (!flag.empty()) return flag;
  std::string interface;
  for (const auto& r : records) {
    if (auto it = r.info.find("interface"); it != r.info.end()) interface = it->second;
  }
  return interface;
}

void PrintLadder(const ladder::Ladder& ladder, bool json) {
  std::fputs(json ? (ladder::LadderToJson(ladder) + "\n").c_str()
                  : ladder::RenderLadderTable(ladder).c_str(),
             stdout);
}

// --replay: the ladder of recorded results, no probe run.
int ReplayLadder(const FlagSet& flags) {
  const int usage = KindOf(ErrorCode::kUsage).exit_status;
  if (flags.GetString("peer").empty()) {
    std::fprintf(stderr, "fabric_probe ladder: --peer is required\n");
    return usage;
  }
  ResultStore store;
  const std::string& path = flags.GetString("replay");
  if (Status loaded = store.Load(path, ResultStore::LoadScope::kEverything); !loaded.ok()) {
    std::fprintf(stderr, "fabric_probe ladder: --replay %s: %s\n", path.c_str(),
                 loaded.absent() ? "no such file" : loaded.error().message.c_str());
    return usage;
  }
  const SysRoot root(flags.GetString("path.procfs"), flags.GetString("path.sysfs"));
  ladder::LadderInput input;
  input.node = "this host";
  input.peer = flags.GetString("peer");
  input.records = store.Snapshot();
  input.now_seconds = SystemClock().WallSeconds();
  const std::string interface = InterfaceOf(input.records, flags.GetString("interface"));
  input.loopback = interface == "lo";
  input.facts = HostFacts(root, interface, input.peer, flags.GetString("nfs-requested-options"),
                          flags.GetString("collective-directory"),
                          flags.GetString("rdma-restrack-recording"));
  input.transfers_absent_reason = "not in a recording (--replay holds probe results only)";
  ladder::Ladder result = ladder::BuildLadder(input);
  PrintLadder(result, flags.GetBool("json"));
  for (const auto& layer : result.layers) {
    if (layer.self_checked) return 0;
  }
  return 1;
}

}  // namespace

int RunLadderCommand(int argc, char** argv) {
  FlagSet flags;
  flags.AddString("peer", "HOST[:PORT]", "Responder to probe (port default 9878; required)", "");
  flags.AddString("secret-file", "FILE", "File holding the shared secret (required)", "");
  flags.AddString("storage", "DIR",
                  "Also measure direct-I/O read and write of this directory (files are created "
                  "and removed)",
                  "");
  flags.AddString("streams", "N", "Streams of the N-stream TCP rung", "8");
  flags.AddString("duration", "DUR", "Measured window of each TCP and RDMA run", "5s");
  flags.AddString("warmup", "DUR", "Warm-up before each window, excluded from the result", "1s");
  flags.AddBool("single-stream", "Run the 1-stream TCP rung", true);
  flags.AddBool("calibrate",
                "Choose each TCP rung's send mode and block size per direction by a short run of "
                "each candidate first (else sendfile, 256 KiB, both directions at once)",
                true);
  flags.AddBool("rdma", "Run the RDMA WRITE rung", true);
  flags.AddString("storage-duration", "DUR", "Measured window of each storage run", "3s");
  flags.AddString("storage-size", "BYTES", "Size of the storage probe's file", "1G");
  flags.AddString("storage-reserve", "BYTES", "Free space the storage write must leave", "1G");
  flags.AddString("bind", "ADDR", "Source address", "");
  flags.AddBool("json", "Print the ladder as JSON instead of a table", false);
  flags.AddString("replay", "FILE",
                  "Run no probe: build the ladder of --peer from these recorded results", "");
  flags.AddString("interface", "IFACE",
                  "The fabric interface (default: the one the TCP probe's traffic left through)",
                  "");
  flags.AddString("path.procfs", "DIR", "procfs mount point for the host facts",
                  std::string(SysRoot::kDefaultProcfs));
  flags.AddString("path.sysfs", "DIR", "sysfs mount point for the host facts",
                  std::string(SysRoot::kDefaultSysfs));
  flags.AddString("nfs-requested-options", "FILE",
                  "fstab-format file naming what each NFS mount asked for (rsize, wsize)", "");
  flags.AddString("collective-directory", "DIR",
                  "directory of NCCL Inspector textfiles and nccl-tests JSON (the collective rung)",
                  "");
  flags.AddString("rdma-restrack-recording", "DIR",
                  "recorded RDMA netlink dumps to read instead of the kernel's resource tracking",
                  "");
  flags.AddBool("help", "Show this help", false);
  const int usage = KindOf(ErrorCode::kUsage).exit_status;
  if (auto s = flags.Parse(argc, argv); !s.ok()) {
    std::fprintf(stderr, "fabric_probe ladder: %s\n", s.error().message.c_str());
    return usage;
  }
  if (flags.GetBool("help")) {
    std::printf("%s%s", kHelp, flags.Usage().c_str());
    return 0;
  }
  auto fail = [usage](const std::string& m) {
    std::fprintf(stderr, "fabric_probe ladder: %s\n", m.c_str());
    return usage;
  };
  if (!flags.positional().empty()) return fail("unexpected argument " + flags.positional()[0]);
  if (!flags.GetString("replay").empty()) return ReplayLadder(flags);
  auto peer_flags = ParsePeerFlags(flags);
  if (!peer_flags.ok()) return fail(peer_flags.error().message);
  Status parsed = OkStatus();
  TcpLadderSettings tcp;
  tcp.duration_seconds = Seconds("duration", flags, parsed);
  tcp.warmup_seconds = Seconds("warmup", flags, parsed);
  tcp.single_stream = flags.GetBool("single-stream");
  tcp.calibration.enabled = flags.GetBool("calibrate");
  // Candidate runs of at most 1 s, shorter for a short ladder.
  tcp.calibration.candidate_seconds = std::clamp(tcp.duration_seconds / 5, 0.2, 1.0);
  tcp.port = peer_flags->peer.port;
  tcp.secret = peer_flags->secret;
  auto streams = ParseCountFlag("streams", flags.GetString("streams"), 1, 256);
  if (!streams.ok()) return fail(streams.error().message);
  tcp.streams = static_cast<uint32_t>(*streams);
  RdmaLadderSettings rdma;
  rdma.duration_seconds = tcp.duration_seconds;
  rdma.warmup_seconds = tcp.warmup_seconds;
  StorageLadderSettings storage;
  storage.directory = flags.GetString("storage");
  storage.duration_seconds = Seconds("storage-duration", flags, parsed);
  storage.warmup_seconds = std::min(1.0, storage.duration_seconds / 3);
  auto size = ParseBytesFlag("storage-size", flags.GetString("storage-size"));
  auto reserve = ParseBytesFlag("storage-reserve", flags.GetString("storage-reserve"));
  if (!parsed.ok()) return fail(parsed.error().message);
  if (!size.ok()) return fail(size.error().message);
  if (!reserve.ok()) return fail(reserve.error().message);
  if (tcp.duration_seconds < 0.1) return fail("--duration: at least 100ms");
  if (*size < (1u << 20)) return fail("--storage-size: at least 1M");
  storage.size_bytes = *size;
  storage.reserve_bytes = *reserve;

  signal(SIGPIPE, SIG_IGN);
  // The rung runners log failures for the exporter's log; here the ladder says why.
  log::Configure(log::Level::kError, log::Format::kLogfmt);
  const FleetNode self{"this host", flags.GetString("bind"), "", 0};
  const FleetNode peer{peer_flags->peer.host, peer_flags->peer.host, "", 0};
  const SysRoot root;  // The host's procfs and sysfs.
  SystemClock clock;
  const double tcp_run =
      2 * (tcp.duration_seconds + tcp.warmup_seconds + TcpCalibrationSeconds(tcp.calibration)) + 1;
  ResultStore store;
  TransfersDuringRun transfers(root, peer.name, peer.address, tcp.port);
  // Ctrl-C ends the running rung at once (a storage run removes its files); the ladder of what
  // finished is still printed.
  StopSource stop;
  const ProbeContext context{root, stop.token(), clock};
  std::thread signals([&stop, mask = BlockShutdownSignals()] {
    for (;;) {
      int number = 0;
      sigwait(&mask, &number);
      if (number == SIGUSR1) return;  // Our own wake-up at the end.
      // A second interrupt: the user will not wait.
      if (stop.stop_requested()) std::_Exit(128 + SIGINT);
      stop.RequestStop();
      std::fprintf(stderr,
                   "\nfabric_probe ladder: interrupted; stopping the current run (again to "
                   "quit now)\n");
    }
  });
  // The steps, each through the probe seam as the exporter's scheduler runs them: one rung, or
  // the storage pair.
  struct Step {
    std::string label;
    double expected_seconds;
    std::function<void()> run;
    std::function<std::string()> outcome;
  };
  auto rung_step = [&](Rung rung, double expected, std::function<void()> run) {
    return Step{std::string(InfoOf(rung).title), expected, std::move(run),
                [&store, rung] { return Outcome(store, rung); }};
  };
  std::vector<Step> steps;
  steps.push_back(rung_step(Rung::kTcpMulti, tcp_run,
                            [&] { RunTcpRung(Rung::kTcpMulti, tcp, self, peer, context, store); }));
  if (tcp.single_stream) {
    steps.push_back(rung_step(Rung::kTcpSingle, tcp_run, [&] {
      RunTcpRung(Rung::kTcpSingle, tcp, self, peer, context, store);
    }));
  }
  if (flags.GetBool("rdma")) {
    steps.push_back(rung_step(Rung::kRdma, rdma.duration_seconds + rdma.warmup_seconds + 1, [&] {
      RunRdmaLadder(rdma, tcp.secret, tcp.port, self, peer, context, store);
    }));
  }
  if (!storage.directory.empty()) {
    steps.push_back(Step{"storage", 2 * (storage.duration_seconds + storage.warmup_seconds) + 1,
                         [&] { RunStorageLadder(storage, context, store); },
                         [&store] {
                           return Outcome(store, Rung::kStorageRead) + " read, " +
                                  Outcome(store, Rung::kStorageWrite) + " write";
                         }});
  }
  Progress progress(static_cast<int>(steps.size()));
  for (const auto& step : steps) {
    if (stop.stop_requested()) break;
    progress.Begin(step.label, step.expected_seconds);
    step.run();
    progress.End(step.outcome());
  }
  kill(getpid(), SIGUSR1);
  signals.join();

  ladder::LadderInput input;
  input.node = "this host";
  input.peer = peer.name;
  input.records = store.Snapshot();
  input.now_seconds = clock.WallSeconds();
  const std::string interface = InterfaceOf(input.records, flags.GetString("interface"));
  input.loopback = interface == "lo";
  input.facts = HostFacts(SysRoot(flags.GetString("path.procfs"), flags.GetString("path.sysfs")),
                          interface, input.peer, flags.GetString("nfs-requested-options"),
                          flags.GetString("collective-directory"),
                          flags.GetString("rdma-restrack-recording"), &transfers);
  // A rung without a result was either not asked for or cut short (an interrupted run records
  // nothing, so that it cannot pass for a measurement).
  const bool has_storage = !storage.directory.empty();
  const char* cut_short = "interrupted before it finished";
  input.absent_reasons = {
      {Rung::kTcpMulti, cut_short},
      {Rung::kRdma, flags.GetBool("rdma") ? cut_short : "not run (--no-rdma)"},
      {Rung::kTcpSingle, tcp.single_stream ? cut_short : "not run (--no-single-stream)"},
      {Rung::kStorageRead, has_storage ? cut_short : "not run (no --storage)"},
      {Rung::kStorageWrite, has_storage ? cut_short : "not run (no --storage)"}};
  input.transfers_absent_reason = "no bulk flow to this peer while the probes ran";
  input.transfers_seen = "bulk flows while the probes ran";
  ladder::Ladder result = ladder::BuildLadder(input);
  for (auto& layer : result.layers) layer.age_seconds = -1;  // All of them just ran.
  PrintLadder(result, flags.GetBool("json"));
  if (stop.stop_requested()) return KindOf(ErrorCode::kInterrupted).exit_status;
  for (const auto& layer : result.layers) {
    if (layer.self_checked) return 0;
  }
  return 1;
}

}  // namespace fabric::probe
