#include "exporter/app/options.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <stdexcept>

#include "exporter/collectors/collector_table.h"
#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

ExporterOptions Resolve(std::vector<std::string> args) {
  FlagSet flags = MakeExporterFlags(CollectorTable());
  std::vector<const char*> argv = {"fabric_exporter"};
  for (const auto& a : args) argv.push_back(a.c_str());
  auto parsed = flags.Parse(static_cast<int>(argv.size()), argv.data());
  if (!parsed.ok()) throw std::invalid_argument(parsed.error().message);
  return ResolveExporterOptions(flags, CollectorTable());
}

// The collectors on by default, minus `without`, in table order: derived from
// the table so adding a collector does not break these tests.
std::vector<std::string> DefaultCollectorsWithout(std::vector<std::string> without = {}) {
  std::vector<std::string> out;
  for (const auto& spec : CollectorTable()) {
    std::string name(spec.name);
    if (spec.enabled_by_default &&
        std::find(without.begin(), without.end(), name) == without.end()) {
      out.push_back(name);
    }
  }
  return out;
}

TEST(OptionsTest, EmbeddedDefaults) {
  auto options = Resolve({});
  EXPECT_EQ(options.listen_address, "127.0.0.1:9877");
  EXPECT_EQ(options.telemetry_path, "/metrics");
  EXPECT_EQ(options.procfs, "/proc");
  EXPECT_EQ(options.enabled_collectors, DefaultCollectorsWithout());
  for (const char* name : {"sockbuf", "softnet", "tcp"}) {
    EXPECT_NE(std::find(options.enabled_collectors.begin(), options.enabled_collectors.end(), name),
              options.enabled_collectors.end())
        << name;
  }
}

TEST(OptionsTest, FlagBeatsConfigBeatsDefault) {
  testing::TestDir dir;
  auto file = dir.Write("c.yml",
                        "web:\n  listen_address: '127.0.0.2:1234'\n  telemetry_path: /m\n"
                        "collectors:\n  tcp:\n    enabled: false\n");
  auto from_file = Resolve({"--config.file=" + file});
  EXPECT_EQ(from_file.listen_address, "127.0.0.2:1234");
  EXPECT_EQ(from_file.telemetry_path, "/m");
  EXPECT_EQ(from_file.enabled_collectors, DefaultCollectorsWithout({"tcp"}));
  auto overridden =
      Resolve({"--config.file=" + file, "--web.listen-address=:9", "--collector.tcp"});
  EXPECT_EQ(overridden.listen_address, ":9");
  EXPECT_EQ(overridden.enabled_collectors, DefaultCollectorsWithout());
}

TEST(OptionsTest, NoCollectorFlagAndDisableDefaults) {
  auto options = Resolve({"--no-collector.softnet"});
  EXPECT_EQ(options.enabled_collectors, DefaultCollectorsWithout({"softnet"}));
  auto only = Resolve({"--collector.disable-defaults", "--collector.tcp"});
  EXPECT_EQ(only.enabled_collectors, (std::vector<std::string>{"tcp"}));
}

std::string ConfigErrorOf(const std::string& yaml) {
  testing::TestDir dir;
  auto file = dir.Write("bad.yml", yaml);
  try {
    Resolve({"--config.file=" + file});
  } catch (const ConfigError& e) {
    std::string msg = e.what();
    // Report relative to the file name so expectations are stable.
    return msg.substr(msg.find("bad.yml"));
  }
  return "";
}

TEST(OptionsTest, ConfigErrorsNameFileLineAndKey) {
  EXPECT_EQ(ConfigErrorOf("web:\n  listen_adress: ':1'\n")
                .rfind("bad.yml:2:3: key web.listen_adress: unknown key", 0),
            0u);
  EXPECT_EQ(ConfigErrorOf("collectors:\n  softnet:\n    enabled: 3\n"),
            "bad.yml:3:14: key collectors.softnet.enabled: expected true or false, got \"3\"");
  EXPECT_EQ(ConfigErrorOf("collectors:\n  sofnet: {}\n")
                .rfind("bad.yml:2:11: key collectors.sofnet: no such collector", 0),
            0u);
  EXPECT_EQ(ConfigErrorOf("log:\n  level: loud\n"),
            "bad.yml:2:10: key log.level: expected debug, info, warn or error, got \"loud\"");
  EXPECT_EQ(ConfigErrorOf("web:\n  max_threads: 0\n"),
            "bad.yml:2:16: key web.max_threads: value 0 is out of range [1, 1024]");
  EXPECT_EQ(ConfigErrorOf("web:\n  telemetry_path: metrics\n")
                .rfind("bad.yml:2:19: key web.telemetry_path:", 0),
            0u);
}

TEST(OptionsTest, LoopbackIsForAFleetOfOneWithTcp) {
  testing::TestDir dir;
  auto secret = dir.Write("secret", "0123456789abcdef0123456789abcdef\n");
  ::chmod(secret.c_str(), 0600);
  const std::string fleet = "fleet:\n  self: a\n  nodes:\n    - {name: a, address: 127.0.0.1}\n";
  EXPECT_EQ(ConfigErrorOf(fleet + "probes:\n  loopback: true\n"),
            "bad.yml:6:13: key probes.loopback: loopback probing runs the TCP rungs: configure "
            "probes.tcp");
  EXPECT_EQ(
      ConfigErrorOf(
          fleet +
          "    - {name: b, address: 127.0.0.2}\nprobes:\n  loopback: "
          "true\n  secret_file: " +
          secret +
          "\n  tcp: {round: 20s, duration: 1s, warmup: 0s, calibration: {enabled: false}}\n"),
      "bad.yml:7:13: key probes.loopback: loopback probing is for a fleet of this node alone; "
      "remove the peers or set loopback: false");
  auto file = dir.Write(
      "good.yml",
      fleet + "probes:\n  loopback: true\n  secret_file: " + secret +
          "\n  tcp: {round: 20s, duration: 1s, warmup: 0s, calibration: {enabled: false}}\n");
  EXPECT_TRUE(Resolve({"--config.file=" + file}).probes.loopback);
}

TEST(OptionsTest, BadFlagValuesNameTheFlag) {
  try {
    Resolve({"--log.format=xml"});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "--log.format: expected logfmt or json, got \"xml\"");
  }
  EXPECT_THROW(Resolve({"--web.listen-address=localhost:9877"}), std::invalid_argument);
  EXPECT_THROW(Resolve({"--web.max-threads=lots"}), std::invalid_argument);
}

TEST(OptionsTest, KeepFilesOpenDefaultsOnFlagBeatsFile) {
  EXPECT_TRUE(Resolve({}).keep_files_open);
  testing::TestDir dir;
  auto off = dir.Write("off.yml", "paths:\n  keep_files_open: false\n");
  EXPECT_FALSE(Resolve({"--config.file=" + off}).keep_files_open);
  EXPECT_TRUE(Resolve({"--config.file=" + off, "--path.keep-files-open"}).keep_files_open);
  EXPECT_FALSE(Resolve({"--no-path.keep-files-open"}).keep_files_open);
  EXPECT_EQ(ConfigErrorOf("paths:\n  keep_files_open: sometimes\n"),
            "bad.yml:2:20: key paths.keep_files_open: expected true or false, got \"sometimes\"");
}

// The in-memory entry point (the config fuzz target's) resolves exactly as the
// file does: same options, same hash, errors naming the given name.
TEST(OptionsTest, FromTextMatchesTheFile) {
  const std::string text = "log:\n  level: debug\ncollectors:\n  softnet:\n    enabled: false\n";
  testing::TestDir dir;
  auto path = dir.Write("ok.yml", text);
  ExporterOptions from_file = Resolve({"--config.file=" + path});
  FlagSet flags = MakeExporterFlags(CollectorTable());
  const char* argv[] = {"fabric_exporter"};
  ASSERT_TRUE(flags.Parse(1, argv).ok());
  ExporterOptions from_text = ResolveExporterOptionsFromText(flags, CollectorTable(), text, path);
  EXPECT_EQ(from_text.log_level, log::Level::kDebug);
  EXPECT_EQ(from_text.enabled_collectors, from_file.enabled_collectors);
  EXPECT_EQ(from_text.config_sha256, from_file.config_sha256);
  EXPECT_EQ(from_text.config_file, path);
  try {
    ResolveExporterOptionsFromText(flags, CollectorTable(), "log:\n  level: loud\n", "mem.yml");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("mem.yml:2:10: key log.level:", 0), 0u);
  }
}

}  // namespace
}  // namespace fabric
