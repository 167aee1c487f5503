// fabric_exporter's settings: flags, the config file and defaults, merged with
// the precedence flag > config file > default, validated at start-up.
#pragma once

#include <string>
#include <vector>

#include "common/flags.h"
#include "common/log.h"
#include "exporter/config/config_node.h"
#include "exporter/config/fleet.h"
#include "exporter/metrics/collector.h"
#include "exporter/scheduled_probes/probe_runtime.h"

namespace fabric {

inline constexpr char kDefaultListenAddress[] = "127.0.0.1:9877";

struct ExporterOptions {
  std::string listen_address = kDefaultListenAddress;
  std::string telemetry_path = "/metrics";
  int web_threads = 8;
  std::string web_config_file;  // Empty: plain HTTP, no authentication.
  std::string procfs = "/proc";
  std::string sysfs = "/sys";
  bool keep_files_open = true;  // OpenFileCache.
  // collectors.flows.window: what the ladder page judges real transfers over, the rule
  // bundle's transferWindow by default (the bundle and the page name the same shapes).
  double transfer_window_seconds = 0;
  log::Level log_level = log::Level::kInfo;
  log::Format log_format = log::Format::kLogfmt;
  std::string config_file;  // Empty: the embedded defaults.
  bool check_config_only = false;
  double reload_interval_seconds = 30;  // 0: reload on SIGHUP only.
  ConfigNode config;
  std::string config_sha256;  // Of the config file's bytes; empty for the embedded defaults.
  std::optional<Fleet> fleet;
  ProbeSettings probes;
  // Names of enabled collectors, in registry order.
  std::vector<std::string> enabled_collectors;
};

// Defines every flag of fabric_exporter, including --[no-]collector.NAME for
// each row of `table`.
FlagSet MakeExporterFlags(const std::vector<CollectorSpec>& table);

// Resolves the options from parsed flags and the config file they name.
// Throws ConfigError (config problems, naming file:line:key) or
// std::invalid_argument (bad flag values, naming the flag).
ExporterOptions ResolveExporterOptions(const FlagSet& flags,
                                       const std::vector<CollectorSpec>& table);
// The same with the config file's text given rather than read from
// --config.file (tests and the fuzz target); `name` stands for the file in
// messages.
ExporterOptions ResolveExporterOptionsFromText(const FlagSet& flags,
                                               const std::vector<CollectorSpec>& table,
                                               const std::string& text, const std::string& name);

// The `collectors.NAME` section for a collector (empty if the file has none).
ConfigNode CollectorSettings(const ExporterOptions& options, std::string_view name);

}  // namespace fabric
