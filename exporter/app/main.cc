// fabric_exporter: the fabric-ladder node daemon.
#include <malloc.h>
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "common/build_info.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/read/open_file_cache.h"
#include "exporter/app/options.h"
#include "exporter/collectors/collector_table.h"
#include "exporter/collectors/process_collector.h"
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

// Series fixed for the process lifetime.
// `probes`: the active side, null when the config names no fleet.
MetricSink ConstantSeries(const ExporterOptions& options, const ProbeRuntime* probes) {
  MetricSink sink;
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

// The ladder section of "/": from the last scrape when one is recent (Prometheus scrapes
// often), else from a scrape of our own, so the page needs no Prometheus.
std::string LadderSection(const std::optional<Fleet>& fleet, const ProbeRuntime* probes,
                          const Scraper& scraper) {
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
  auto ladders =
      ladder::NodeLadders(*fleet, probes != nullptr && probes->loopback(), latest->families,
                          probes != nullptr ? probes->Results() : std::vector<ProbeRecord>{}, now);
  std::string note = ladder::KeepSlowestPaths(ladders, 16);
  if (ladders.empty()) note = "The fleet names no peer of this node.";
  return RenderLadderSection("The ladder of " + fleet->self, ladders, note);
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
  // Block the shutdown signals before any thread starts so that only the
  // sigwait below receives them.
  sigset_t shutdown_signals;
  sigemptyset(&shutdown_signals);
  sigaddset(&shutdown_signals, SIGINT);
  sigaddset(&shutdown_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &shutdown_signals, nullptr);
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

  ExporterOptions options = ResolveExporterOptions(flags, CollectorTable());
  log::Configure(options.log_level, options.log_format);
  SysRoot root(options.procfs, options.sysfs);
  if (options.keep_files_open) OpenFileCache::Global().SetBudget(OpenFilesBudget());
  auto collectors = BuildCollectors(options, root);
  if (options.check_config_only) {
    if (!options.web_config_file.empty()) LoadWebConfig(options.web_config_file);
    std::cout << "fabric_exporter: configuration OK"
              << (options.config_file.empty() ? " (embedded defaults)"
                                              : " (" + options.config_file + ")")
              << "; collectors:";
    for (const auto& c : collectors) std::cout << ' ' << c.name;
    std::cout << '\n';
    return 0;
  }

  // The exporter's own cost, whatever --path.procfs says: its subject is this process.
  collectors.push_back({"process", MakeProcessCollector(SysRoot())});
  // The active side runs when the config names a fleet.
  std::unique_ptr<ProbeRuntime> probes;
  if (options.fleet) {
    probes = std::make_unique<ProbeRuntime>(*options.fleet, options.probes, root);
    collectors.push_back({"probes", probes->MakeCollector()});
    if (auto mesh = probes->MakeMeshCollector()) collectors.push_back({"mesh", std::move(mesh)});
  }
  auto scraper = std::make_shared<Scraper>(
      std::move(collectors), ConstantSeries(options, probes.get()), &ladder::IsFactFamily);
  LandingPageInfo landing = MakeLandingInfo(options);
  WebRoutes routes;
  routes.telemetry_path = options.telemetry_path;
  const ProbeRuntime* probe_view = probes.get();  // Outlives the server (declared first).
  routes.landing_page = [landing, scraper, probe_view, fleet = options.fleet] {
    std::string ladder = LadderSection(fleet, probe_view, *scraper);
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

  if (probes) {
    if (Status started = probes->Start(); !started.ok()) {
      log::Error("cannot start the probes", {{"err", started.error().message}});
      return 1;
    }
  }

  int signal_number = 0;
  sigwait(&shutdown_signals, &signal_number);
  log::Info("shutting down", {{"signal", signal_number == SIGTERM ? "SIGTERM" : "SIGINT"}});
  if (probes) probes->Stop();  // Cancels a running probe; its partial result is not kept.
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
