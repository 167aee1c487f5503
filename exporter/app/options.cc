#include "exporter/app/options.h"

#include <stdexcept>

#include "common/strings.h"
#include "exporter/config/sha256.h"
#include "exporter/http/listen_address.h"
#include "exporter/ladder/rule_thresholds.h"

namespace fabric {
namespace {

// Picks the flag's value when given on the command line, else the config
// file's, else the default.
std::string Pick(const FlagSet& flags, std::string_view flag, const ConfigNode& section,
                 std::string_view key) {
  if (flags.IsSet(flag)) return flags.GetString(flag);
  if (auto v = section.String(key)) return *v;
  return flags.GetString(flag);
}

// Reports a bad value against wherever it came from: the config key (with
// file:line) when the file set it, else the flag.
[[noreturn]] void Reject(const FlagSet& flags, std::string_view flag, const ConfigNode& section,
                         std::string_view key, const std::string& problem) {
  if (!flags.IsSet(flag) && section.String(key)) section.Fail(key, problem);
  throw std::invalid_argument("--" + std::string(flag) + ": " + problem);
}

// "driver_stats_include" -> "collector.netdev.driver-stats-include".
std::string SettingFlag(std::string_view collector, std::string_view key) {
  std::string dashed(key);
  for (char& c : dashed) {
    if (c == '_') c = '-';
  }
  return "collector." + std::string(collector) + "." + dashed;
}

void ValidateConfigShape(const ConfigNode& root, const std::vector<CollectorSpec>& table) {
  root.ExpectMapWithKeys({"web", "log", "paths", "collectors", "fleet", "probes"});
  root.Child("web").ExpectMapWithKeys(
      {"listen_address", "telemetry_path", "max_threads", "config_file"});
  root.Child("log").ExpectMapWithKeys({"level", "format"});
  root.Child("paths").ExpectMapWithKeys({"procfs", "sysfs", "keep_files_open"});
  ConfigNode collectors = root.Child("collectors");
  for (const auto& name : collectors.MapKeys()) {
    const CollectorSpec* spec = nullptr;
    for (const auto& s : table) {
      if (s.name == name) spec = &s;
    }
    if (spec == nullptr) {
      std::string known;
      for (const auto& s : table) known += (known.empty() ? "" : ", ") + std::string(s.name);
      collectors.Fail(name, "no such collector (known: " + known + ")");
    }
    ConfigNode section = collectors.Child(name);
    std::vector<std::string_view> keys = {"enabled"};
    keys.insert(keys.end(), spec->setting_keys.begin(), spec->setting_keys.end());
    section.ExpectMapWithKeys(keys);
    section.Bool("enabled");  // Type-checks it.
  }
}

}  // namespace

FlagSet MakeExporterFlags(const std::vector<CollectorSpec>& table) {
  FlagSet flags;
  flags.AddString("config.file", "FILE",
                  "YAML config file (see deploy/examples/fabric_exporter.yml); without it the "
                  "embedded defaults apply",
                  "");
  flags.AddBool("config.check", "validate the config file and flags, print the result, exit",
                false);
  flags.AddString("config.reload-interval", "DURATION",
                  "how often to check the config file and the fleet's nodes file for a change "
                  "and reload (as SIGHUP does); 0s: on SIGHUP only",
                  "30s");
  flags.AddString("web.listen-address", "ADDR",
                  "address to serve metrics on: HOST:PORT, [IPV6]:PORT or :PORT for all",
                  kDefaultListenAddress);
  flags.AddString("web.config.file", "FILE",
                  "Prometheus exporter-toolkit web config: TLS and basic auth for every endpoint",
                  "");
  flags.AddString("web.telemetry-path", "PATH", "path under which to expose metrics", "/metrics");
  flags.AddString("web.max-threads", "N", "web server worker threads (concurrent requests)", "8");
  flags.AddString("path.procfs", "DIR", "procfs mount point", "/proc");
  flags.AddString("path.sysfs", "DIR", "sysfs mount point", "/sys");
  flags.AddBool("path.keep-files-open",
                "keep sysfs attribute files open between scrapes and re-read them in place "
                "(a large host's scrape costs a third less CPU); directories are re-checked on "
                "every scrape, so renamed interfaces and replaced files are seen",
                true);
  flags.AddString("log.level", "LEVEL", "only log messages at or above: debug, info, warn, error",
                  "info");
  flags.AddString("log.format", "FORMAT", "log line format: logfmt or json", "logfmt");
  flags.AddBool("collector.disable-defaults",
                "disable every collector not enabled explicitly by flag or config", false);
  for (const auto& spec : table) {
    flags.AddBool("collector." + std::string(spec.name),
                  "collector " + std::string(spec.name) + ": " + std::string(spec.summary),
                  spec.enabled_by_default);
    for (auto key : spec.flag_keys) {
      flags.AddString(SettingFlag(spec.name, key), "VALUE",
                      "sets collectors." + std::string(spec.name) + "." + std::string(key) +
                          " (see deploy/examples/fabric_exporter.yml)",
                      "");
    }
  }
  flags.AddBool("print-probe-catalogue",
                "print the probe catalogue as JSON and exit: the rungs, every value with the "
                "probe kinds that produce it, the verdicts, the record families and the failure "
                "reasons (what the rules and dashboards lints check against)",
                false);
  flags.AddBool("version", "print the version and exit", false);
  flags.AddBool("help", "print this help and exit", false);
  return flags;
}

namespace {

// The options from the flags and the config file (null: no file) parsed
// from `contents`.
ExporterOptions Resolve(const FlagSet& flags, const std::vector<CollectorSpec>& table,
                        const ConfigNode* file, const std::string& contents) {
  ExporterOptions options;
  options.check_config_only = flags.GetBool("config.check");
  options.reload_interval_seconds =
      ConfigNode()
          .WithOverride({"reload_interval"}, flags.GetString("config.reload-interval"),
                        "flag --config.reload-interval")
          .DurationSeconds("reload_interval", 0, 86400)
          .value_or(0);
  if (file != nullptr) {
    options.config_file = file->file();
    options.config = *file;
    options.config_sha256 = Sha256Hex(contents);
    ValidateConfigShape(options.config, table);
    options.fleet = ParseFleet(options.config.Child("fleet"));
    options.probes = ParseProbeSettings(options.config.Child("probes"));
    if (options.config.Child("probes").present() && !options.fleet) {
      options.config.Fail("probes", "probes need a fleet section naming this node and its peers");
    }
    if (options.probes.loopback && options.fleet && options.fleet->nodes.size() != 1) {
      options.config.Child("probes").Fail(
          "loopback",
          "loopback probing is for a fleet of this node alone; remove the peers or "
          "set loopback: false");
    }
  }
  for (const auto& spec : table) {
    for (auto key : spec.flag_keys) {
      std::string flag = SettingFlag(spec.name, key);
      if (!flags.IsSet(flag)) continue;
      options.config =
          options.config.WithOverride({"collectors", std::string(spec.name), std::string(key)},
                                      flags.GetString(flag), "flag --" + flag);
    }
  }
  const ConfigNode& config = options.config;
  ConfigNode web = config.Child("web");
  ConfigNode log_section = config.Child("log");
  ConfigNode paths = config.Child("paths");

  options.listen_address = Pick(flags, "web.listen-address", web, "listen_address");
  if (auto civet = ToCivetListeningPort(options.listen_address); !civet.ok()) {
    Reject(flags, "web.listen-address", web, "listen_address", civet.error().message);
  }
  options.telemetry_path = Pick(flags, "web.telemetry-path", web, "telemetry_path");
  if (options.telemetry_path.empty() || options.telemetry_path[0] != '/' ||
      options.telemetry_path == "/" || options.telemetry_path.rfind("/-/", 0) == 0) {
    Reject(flags, "web.telemetry-path", web, "telemetry_path",
           "\"" + options.telemetry_path +
               "\" must start with '/' and must not be \"/\" or under \"/-/\"");
  }
  if (flags.IsSet("web.max-threads")) {
    auto n = ParseInt64(flags.GetString("web.max-threads"));
    if (!n || *n < 1 || *n > 1024) {
      throw std::invalid_argument("--web.max-threads: expected an integer from 1 to 1024");
    }
    options.web_threads = static_cast<int>(*n);
  } else if (auto n = web.Int("max_threads", 1, 1024)) {
    options.web_threads = static_cast<int>(*n);
  }
  options.web_config_file = Pick(flags, "web.config.file", web, "config_file");
  options.procfs = Pick(flags, "path.procfs", paths, "procfs");
  options.sysfs = Pick(flags, "path.sysfs", paths, "sysfs");
  if (flags.IsSet("path.keep-files-open")) {
    options.keep_files_open = flags.GetBool("path.keep-files-open");
  } else if (auto keep = paths.Bool("keep_files_open")) {
    options.keep_files_open = *keep;
  }
  options.probes.best_window_seconds = ladder::rule_config::kLongBaselineWindowSeconds;
  options.transfer_window_seconds = config.Child("collectors")
                                        .Child("flows")
                                        .DurationSeconds("window", 10, 86400)
                                        .value_or(ladder::rule_config::kTransferWindowSeconds);

  std::string level = Pick(flags, "log.level", log_section, "level");
  auto parsed_level = log::ParseLevel(level);
  if (!parsed_level) {
    Reject(flags, "log.level", log_section, "level",
           "expected debug, info, warn or error, got \"" + level + "\"");
  }
  options.log_level = *parsed_level;
  std::string format = Pick(flags, "log.format", log_section, "format");
  auto parsed_format = log::ParseFormat(format);
  if (!parsed_format) {
    Reject(flags, "log.format", log_section, "format",
           "expected logfmt or json, got \"" + format + "\"");
  }
  options.log_format = *parsed_format;

  const bool disable_defaults = flags.GetBool("collector.disable-defaults");
  for (const auto& spec : table) {
    std::string flag = "collector." + std::string(spec.name);
    bool enabled = spec.enabled_by_default && !disable_defaults;
    if (flags.IsSet(flag)) {
      enabled = flags.GetBool(flag);
    } else if (auto v = config.Child("collectors").Child(spec.name).Bool("enabled")) {
      enabled = *v;
    }
    if (enabled) options.enabled_collectors.emplace_back(spec.name);
  }
  return options;
}

}  // namespace

ExporterOptions ResolveExporterOptions(const FlagSet& flags,
                                       const std::vector<CollectorSpec>& table) {
  std::string path = flags.GetString("config.file");
  if (path.empty()) return Resolve(flags, table, nullptr, "");
  std::string contents;
  ConfigNode file = ConfigNode::LoadFile(path, &contents);
  return Resolve(flags, table, &file, contents);
}

ExporterOptions ResolveExporterOptionsFromText(const FlagSet& flags,
                                               const std::vector<CollectorSpec>& table,
                                               const std::string& text, const std::string& name) {
  ConfigNode file = ConfigNode::LoadString(text, name);
  return Resolve(flags, table, &file, text);
}

ConfigNode CollectorSettings(const ExporterOptions& options, std::string_view name) {
  return options.config.Child("collectors").Child(name);
}

}  // namespace fabric
