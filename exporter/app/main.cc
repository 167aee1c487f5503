// fabric_exporter: the fabric-ladder node daemon.
#include <malloc.h>
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <tuple>

#include "common/build_info.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/read/file_reader.h"
#include "common/read/open_file_cache.h"
#include "exporter/app/options.h"
#include "exporter/collectors/collector_table.h"
#include "exporter/collectors/process_collector.h"
#include "exporter/config/sha256.h"
#include "exporter/http/web_config.h"
#include "exporter/http/web_server.h"
#include "exporter/ladder/ladder_facts.h"
#include "exporter/ladder/node_ladders.h"
#include "exporter/metrics/fleet_info.h"
#include "exporter/metrics/scraper.h"
#include "exporter/pages/ladder_page.h"
#include "exporter/pages/landing_page.h"
#include "exporter/scheduled_probes/probe_catalogue.h"
#include "exporter/scheduled_probes/probe_runtime.h"

namespace fabric {
namespace {

constexpr char kUsageHeader[] =
    "Usage: fabric_exporter [FLAGS]\n\n"
    "Prometheus exporter for the capacity ladder of RDMA/RoCE/TCP fabrics: NIC, PCIe, RDMA,\n"
    "TCP, storage and real transfers. Serves /metrics, the ladder page at / (this node's ladder\n"
    "to each peer, from its own latest data), /-/healthy and /-/ready. Settings come from\n"
    "flags, then the --config.file, then the defaults.\n\nFlags:\n";

// The last config load's outcome (start-up or reload).
struct ReloadStatus {
  bool successful = true;
  double success_time = 0;  // Unix seconds of the last successful load.
};

// Series fixed until the next config reload.
// `probes`: the active side, null when the config names no fleet.
MetricSink ConstantSeries(const ExporterOptions& options, const ProbeRuntime* probes,
                          const ReloadStatus& reload) {
  MetricSink sink;
  sink.Gauge("fabric_exporter_config_last_reload_successful",
             "1 when the last config reload (SIGHUP, or a change of the config or nodes file "
             "seen by --config.reload-interval) succeeded, 0 when it failed and the exporter "
             "kept running on the config before it (the log names the file, line and key).",
             {}, reload.successful ? 1 : 0);
  sink.Gauge("fabric_exporter_config_last_reload_success_timestamp_seconds",
             "Unix time of the last successful config load, at start-up or by a reload.", {},
             reload.success_time);
  sink.Info("fabric_exporter_config_info",
            "SHA-256 of the config file the exporter started with (empty for the embedded "
            "defaults): a change across restarts is configuration drift.",
            {{"sha256", options.config_sha256}});
  if (options.fleet) {
    // Above the detail bound the `probes` collector publishes the peers' join
    // series with the per-pair series that need them.
    if (probes != nullptr && probes->PublishesPeerInfo()) {
      AddFleetNodeInfo(*options.fleet, sink);
    } else {
      AddFleetInfo(*options.fleet, sink);
    }
  }
  sink.Info("fabric_exporter_build_info",
            "fabric_exporter's version, source revision, build type and compiler; always 1.",
            {{"version", build::kVersion},
             {"revision", build::kRevision},
             {"build_type", build::kBuildType},
             {"compiler", build::kCompiler}});
  return sink;
}

std::vector<NamedCollector> BuildCollectors(const ExporterOptions& options, const SysRoot& root) {
  std::vector<NamedCollector> collectors;
  for (const auto& spec : CollectorTable()) {
    bool enabled = false;
    for (const auto& name : options.enabled_collectors) enabled = enabled || name == spec.name;
    if (!enabled) continue;
    ConfigNode settings = CollectorSettings(options, spec.name);
    const Fleet* fleet = options.fleet ? &*options.fleet : nullptr;
    collectors.push_back(
        {std::string(spec.name), spec.factory({root, settings, fleet, options.probes.tcp.port})});
  }
  return collectors;
}

LandingPageInfo MakeLandingInfo(const ExporterOptions& options) {
  LandingPageInfo info{build::kVersion, options.telemetry_path, options.procfs, options.sysfs, {}};
  for (const auto& spec : CollectorTable()) {
    bool enabled = false;
    for (const auto& name : options.enabled_collectors) enabled = enabled || name == spec.name;
    info.collectors.push_back({std::string(spec.name), enabled, std::string(spec.summary)});
  }
  return info;
}

// How long the scraper keeps the transfer counters: the page's window.
std::chrono::steady_clock::duration WindowSpan(const ExporterOptions& options) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(options.transfer_window_seconds));
}

// The ladder section of "/": from the last scrape when one is recent (Prometheus scrapes
// often), else from a scrape of our own, so the page needs no Prometheus.
std::string LadderSection(const std::optional<Fleet>& fleet, const ProbeRuntime* probes,
                          const Scraper& scraper, double transfer_window_seconds) {
  if (!fleet) {
    return RenderLadderSection(
        "The ladder", {},
        "No fleet configured, so no probes run and there is no path to draw. Add a fleet and a "
        "probes section to the config (deploy/examples/fabric_exporter.yml), or start with "
        "scripts/run for a loopback ladder of this machine.");
  }
  auto latest = scraper.Latest();
  if (latest == nullptr ||
      std::chrono::steady_clock::now() - latest->taken > std::chrono::minutes(1)) {
    latest = scraper.Scrape();
  }
  const double now = SystemClock().WallSeconds();
  // Real transfers are judged over the rules' window, from the scrapes the exporter kept.
  const auto kept = scraper.History();
  ladder::CounterHistory history{transfer_window_seconds, {}};
  for (const auto& scrape : kept) {
    const std::chrono::duration<double> at = scrape->taken.time_since_epoch();
    history.scrapes.emplace_back(at.count(), &scrape->families);
  }
  auto ladders = ladder::NodeLadders(
      *fleet, probes != nullptr && probes->loopback(), latest->families,
      probes != nullptr ? probes->Results() : std::vector<ProbeRecord>{}, now, &history);
  std::string note = ladder::KeepSlowestPaths(ladders, 16);
  if (ladders.empty()) note = "The fleet names no peer of this node.";
  return RenderLadderSection("The ladder of " + fleet->self, ladders, note);
}

// What a config reload replaces: the options resolved from the config file and the
// probe runtime built from them. The ladder page reads the current one.
struct Node {
  ExporterOptions options;
  std::unique_ptr<ProbeRuntime> probes;  // Null without a fleet.
};

class CurrentNode {
 public:
  std::shared_ptr<const Node> Get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return node_;
  }
  void Set(std::shared_ptr<const Node> node) {
    std::lock_guard<std::mutex> lock(mu_);
    node_ = std::move(node);
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const Node> node_;
};

// The collectors of `node`: the passive ones, the exporter's own cost, then its probe
// runtime's.
std::vector<NamedCollector> NodeCollectors(const Node& node, const SysRoot& root) {
  auto collectors = BuildCollectors(node.options, root);
  // Whatever --path.procfs says: its subject is this process.
  collectors.push_back({"process", MakeProcessCollector(SysRoot())});
  if (node.probes) {
    collectors.push_back({"probes", node.probes->MakeCollector()});
    if (auto mesh = node.probes->MakeMeshCollector()) {
      collectors.push_back({"mesh", std::move(mesh)});
    }
    if (auto fleet = node.probes->MakeFleetCollector()) {
      collectors.push_back({"fleet", std::move(fleet)});
    }
  }
  return collectors;
}

// What the reload poll compares: the config file's and the nodes file's bytes, hashed.
std::string ConfigFingerprint(const ExporterOptions& options) {
  std::string fingerprint;
  for (const std::string& path :
       {options.config_file, options.fleet ? options.fleet->nodes_file : std::string()}) {
    if (path.empty()) continue;
    auto text = ReadTable(path, 16 * 1024 * 1024);
    fingerprint += path + "=" + (text.ok() ? Sha256Hex(*text) : "unreadable") + "\n";
  }
  return fingerprint;
}

// Settings a reload cannot change in a running process (the listener, the roots every
// collector reads from): logged, kept until the next restart.
void WarnRestartOnly(const ExporterOptions& running, const ExporterOptions& loaded) {
  for (auto [key, before, after] :
       {std::tuple{"web.listen_address", running.listen_address, loaded.listen_address},
        std::tuple{"web.telemetry_path", running.telemetry_path, loaded.telemetry_path},
        std::tuple{"web.config_file", running.web_config_file, loaded.web_config_file},
        std::tuple{"paths.procfs", running.procfs, loaded.procfs},
        std::tuple{"paths.sysfs", running.sysfs, loaded.sysfs}}) {
    if (before != after) {
      log::Warn("config reload: this key takes effect at the next restart",
                {{"key", key}, {"running", before}, {"loaded", after}});
    }
  }
}

// A config reload: the config file (and its nodes file) read again and checked as at
// start-up. A bad file changes nothing but the reload status, and the log says why (file,
// line, key). A good one replaces the collectors and the probe runtime; the new runtime takes
// the old one's results, calibrations, budget and meetings (ProbeRuntime::Adopt). False when
// the new probe runtime cannot start (its responder's port): the process must then exit.
bool Reload(const FlagSet& flags, const SysRoot& root, CurrentNode& current, Scraper& scraper,
            ReloadStatus& status, const std::string& why) {
  const std::shared_ptr<const Node> previous = current.Get();
  auto next = std::make_shared<Node>();
  std::vector<NamedCollector> collectors;
  try {
    next->options = ResolveExporterOptions(flags, CollectorTable());
    if (next->options.fleet) {
      next->probes =
          std::make_unique<ProbeRuntime>(*next->options.fleet, next->options.probes, root);
    }
    collectors = NodeCollectors(*next, root);
  } catch (const std::exception& e) {  // ConfigError, or std::invalid_argument from a flag
    // The message is what operators grep for (docs/runbooks.md); `kept` says what runs on.
    log::Error("config reload failed",
               {{"trigger", why}, {"err", e.what()}, {"kept", "the config before it"}});
    status.successful = false;
    scraper.SetConstant(ConstantSeries(previous->options, previous->probes.get(), status));
    return true;
  }
  WarnRestartOnly(previous->options, next->options);
  next->options.listen_address = previous->options.listen_address;
  next->options.telemetry_path = previous->options.telemetry_path;
  next->options.web_config_file = previous->options.web_config_file;
  log::Configure(next->options.log_level, next->options.log_format);
  if (previous->probes) previous->probes->Stop();  // Frees the responder's port.
  if (next->probes && previous->probes) next->probes->Adopt(*previous->probes);
  status = {true, SystemClock().WallSeconds()};
  // The old collectors read the old runtime: they go first (declared after `previous`).
  std::vector<NamedCollector> replaced = scraper.Replace(
      std::move(collectors), ConstantSeries(next->options, next->probes.get(), status));
  scraper.SetHistorySpan(WindowSpan(next->options));
  current.Set(next);
  log::Info(
      "config reloaded",
      {{"trigger", why},
       {"fleet_digest", next->options.fleet ? next->options.fleet->digest : ""},
       {"nodes", next->options.fleet ? std::to_string(next->options.fleet->nodes.size()) : "0"}});
  if (next->probes) {
    if (Status started = next->probes->Start(); !started.ok()) {
      log::Error("cannot start the probes after the reload", {{"err", started.error().message}});
      return false;
    }
  }
  return true;
}

// How many attribute files the OpenFileCache may keep open: half the open-files limit, which is
// first raised to the hard limit (Debian's default soft limit is 1024; a host with 16 NICs and
// 256 PCI devices reads about 3,600 attributes). The other half is for connections and probes.
size_t OpenFilesBudget() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  constexpr rlim_t kMaxCached = 65536;
  return static_cast<size_t>(std::min<rlim_t>(limit.rlim_cur / 2, kMaxCached));
}

int Run(int argc, char** argv) {
  // One malloc arena for every thread: glibc gives each web server thread
  // that serves a scrape an arena of its own, and each keeps a scrape's worth
  // of freed memory, so RSS grew with the threads used (15 MiB instead of
  // 10 MiB on bench/scrape_vs_node_exporter.py's host). Scrapes are
  // serialised and probe threads allocate little, so they hardly contend.
  mallopt(M_ARENA_MAX, 1);
  // A fixed mmap threshold: the scrape's big buffers (the exposition, gzip's
  // state) go back to the kernel when freed instead of raising the dynamic
  // threshold and staying in the heap.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  // Block the shutdown and reload signals before any thread starts so that
  // only the sigtimedwait below receives them.
  sigset_t handled_signals;
  sigemptyset(&handled_signals);
  sigaddset(&handled_signals, SIGINT);
  sigaddset(&handled_signals, SIGTERM);
  sigaddset(&handled_signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &handled_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  FlagSet flags = MakeExporterFlags(CollectorTable());
  if (auto parsed = flags.Parse(argc, argv); !parsed.ok()) {
    std::fprintf(stderr, "fabric_exporter: %s\n", parsed.error().message.c_str());
    return 2;
  }
  if (flags.GetBool("help")) {
    std::cout << kUsageHeader << flags.Usage();
    return 0;
  }
  if (flags.GetBool("print-probe-catalogue")) {
    std::cout << ProbeCatalogueJson();
    return 0;
  }
  if (flags.GetBool("version")) {
    std::cout << "fabric_exporter " << build::kVersion << " (revision " << build::kRevision << ", "
              << build::kBuildType << ", " << build::kCompiler << ")\n";
    return 0;
  }
  if (!flags.positional().empty()) {
    std::fprintf(stderr, "fabric_exporter: unexpected argument \"%s\" (flags start with --)\n",
                 flags.positional().front().c_str());
    return 2;
  }

  auto first = std::make_shared<Node>();
  first->options = ResolveExporterOptions(flags, CollectorTable());
  const ExporterOptions& options = first->options;
  log::Configure(options.log_level, options.log_format);
  SysRoot root(options.procfs, options.sysfs);
  if (options.keep_files_open) OpenFileCache::Global().SetBudget(OpenFilesBudget());
  if (options.check_config_only) {
    auto collectors = BuildCollectors(options, root);
    if (!options.web_config_file.empty()) LoadWebConfig(options.web_config_file);
    std::cout << "fabric_exporter: configuration OK"
              << (options.config_file.empty() ? " (embedded defaults)"
                                              : " (" + options.config_file + ")")
              << "; collectors:";
    for (const auto& c : collectors) std::cout << ' ' << c.name;
    std::cout << '\n';
    return 0;
  }

  // The active side runs when the config names a fleet.
  if (options.fleet) {
    first->probes = std::make_unique<ProbeRuntime>(*options.fleet, options.probes, root);
  }
  ReloadStatus reload{true, SystemClock().WallSeconds()};
  auto scraper = std::make_shared<Scraper>(
      NodeCollectors(*first, root), ConstantSeries(options, first->probes.get(), reload),
      &ladder::IsFactFamily, ScrapeHistorySettings{&ladder::IsHistoryFamily, WindowSpan(options)});
  auto current = std::make_shared<CurrentNode>();
  current->Set(first);
  LandingPageInfo landing = MakeLandingInfo(options);
  WebRoutes routes;
  routes.telemetry_path = options.telemetry_path;
  routes.landing_page = [landing, scraper, current] {
    const std::shared_ptr<const Node> node = current->Get();  // Kept alive over a reload.
    std::string ladder = LadderSection(node->options.fleet, node->probes.get(), *scraper,
                                       node->options.transfer_window_seconds);
    return RenderLandingPage(landing, scraper->Statuses(), ladder);
  };
  routes.ready = [] { return true; };
  WebServerOptions web;
  web.listen_address = options.listen_address;
  web.threads = options.web_threads;
  if (!options.web_config_file.empty()) web.web_config = LoadWebConfig(options.web_config_file);
  MetricsSource metrics = [scraper]() -> std::shared_ptr<const MetricFamilies> {
    auto snapshot = scraper->Scrape();
    return {snapshot, &snapshot->families};  // Shares the snapshot's ownership.
  };
  auto server = WebServer::Start(web, routes, std::move(metrics));
  if (!server.ok()) {
    log::Error("cannot start the web server", {{"err", server.error().message}});
    return 1;
  }
  std::string collectors_list;
  for (const auto& name : options.enabled_collectors) {
    collectors_list += (collectors_list.empty() ? "" : ",") + name;
  }
  // Report the port actually bound (it differs from the request for ":0").
  std::string host = options.listen_address.substr(0, options.listen_address.rfind(':'));
  if (host.empty()) host = "0.0.0.0";
  auto ports = (*server)->ListeningPorts();
  std::string url = std::string(web.web_config.tls ? "https" : "http") + "://" + host + ":" +
                    (ports.empty() ? std::string("?") : std::to_string(ports.front())) +
                    options.telemetry_path;
  log::Info("fabric_exporter listening",
            {{"url", url},
             {"version", build::kVersion},
             {"config", options.config_file.empty() ? "embedded defaults" : options.config_file},
             {"collectors", collectors_list}});

  if (first->probes) {
    if (Status started = first->probes->Start(); !started.ok()) {
      log::Error("cannot start the probes", {{"err", started.error().message}});
      return 1;
    }
  }

  // SIGHUP reloads; so does a change of the config or nodes file, polled. A file that failed
  // to load is retried once it changes again, not on every poll.
  const double poll = options.reload_interval_seconds;
  std::string loaded = ConfigFingerprint(options);
  int signal_number = 0;
  while (true) {
    timespec wait{static_cast<time_t>(poll > 0 ? poll : 3600),
                  static_cast<long>((poll - std::floor(poll)) * 1e9)};
    signal_number = sigtimedwait(&handled_signals, nullptr, &wait);
    if (signal_number == SIGINT || signal_number == SIGTERM) break;
    std::string why;
    if (signal_number == SIGHUP) {
      why = "SIGHUP";
    } else if (poll > 0 && !options.config_file.empty()) {
      if (std::string now = ConfigFingerprint(current->Get()->options); now != loaded) {
        why = "file changed";
      }
    }
    if (why.empty()) continue;
    if (!Reload(flags, root, *current, *scraper, reload, why)) {
      server->reset();
      return 1;
    }
    // After a failed reload the running config's paths name the files that failed.
    loaded = ConfigFingerprint(current->Get()->options);
  }
  log::Info("shutting down", {{"signal", signal_number == SIGTERM ? "SIGTERM" : "SIGINT"}});
  // Cancels a running probe; its partial result is not kept.
  if (auto node = current->Get(); node->probes) node->probes->Stop();
  server->reset();
  return 0;
}

}  // namespace
}  // namespace fabric

int main(int argc, char** argv) {
  try {
    return fabric::Run(argc, argv);
  } catch (const fabric::ConfigError& e) {
    std::fprintf(stderr, "fabric_exporter: config error: %s\n", e.what());
    return 2;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "fabric_exporter: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fabric_exporter: fatal: %s\n", e.what());
    return 1;
  }
}
