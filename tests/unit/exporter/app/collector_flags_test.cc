// Collector setting flags (--collector.NAME.KEY) and the config override they
// ride on, exercised through the netdev collector's flags.
#include <gtest/gtest.h>

#include "exporter/app/options.h"
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

TEST(CollectorFlagsTest, FlagBeatsConfigFileKey) {
  testing::TestDir dir;
  auto file = dir.Write("c.yml",
                        "collectors:\n  netdev:\n    driver_stats_include: '^a$'\n"
                        "    queue_stats: true\n");
  auto from_file = CollectorSettings(Resolve({"--config.file=" + file}), "netdev");
  EXPECT_EQ(from_file.String("driver_stats_include"), "^a$");
  auto flagged = CollectorSettings(
      Resolve({"--config.file=" + file, "--collector.netdev.driver-stats-include=[b]+"}), "netdev");
  EXPECT_EQ(flagged.String("driver_stats_include"), "[b]+");  // Taken verbatim, not as YAML.
  EXPECT_EQ(flagged.Bool("queue_stats"), true);               // Other keys keep the file's.
  auto no_file = CollectorSettings(Resolve({"--collector.netdev.queue-stats=true"}), "netdev");
  EXPECT_EQ(no_file.Bool("queue_stats"), true);
}

TEST(CollectorFlagsTest, BadFlagValueNamesTheFlag) {
  auto settings = CollectorSettings(Resolve({"--collector.netdev.queue-stats=maybe"}), "netdev");
  try {
    settings.Bool("queue_stats");
    ADD_FAILURE() << "accepted maybe";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "flag --collector.netdev.queue-stats: key collectors.netdev.queue_stats: expected "
              "true or false, got \"maybe\"");
  }
}

TEST(CollectorFlagsTest, OverrideLeavesTheOriginalUntouched) {
  ConfigNode original =
      ConfigNode::LoadString("collectors:\n  netdev:\n    queue_stats: false\n", "c.yml");
  ConfigNode changed =
      original.WithOverride({"collectors", "netdev", "queue_stats"}, "true", "flag --x");
  EXPECT_EQ(original.Child("collectors").Child("netdev").Bool("queue_stats"), false);
  EXPECT_EQ(changed.Child("collectors").Child("netdev").Bool("queue_stats"), true);
  // File positions still name the file for keys the flag did not set.
  EXPECT_EQ(changed.Child("collectors").Where("netdev").rfind("c.yml:", 0), 0u);
}

}  // namespace
}  // namespace fabric
