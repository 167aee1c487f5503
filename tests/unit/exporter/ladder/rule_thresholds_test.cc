// The page's thresholds are the rule bundle's: every number of rules/thresholds.json (the
// mixin's _config, kept equal to it by `rules/generate --check`) is compiled into
// exporter/ladder/rule_thresholds.h with the same value, every one-unit duration ('5m') as
// its seconds under KEYSeconds, and nothing else is.
#include "exporter/ladder/rule_thresholds.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <regex>
#include <string>

namespace fabric::ladder {
namespace {

TEST(RuleThresholds, EveryNumberOfTheBundlesConfigWithItsValue) {
  const YAML::Node config =
      YAML::LoadFile(std::string(FABRIC_SOURCE_DIR) + "/rules/thresholds.json");
  std::map<std::string, double> numbers;
  for (const auto& entry : config) {
    const YAML::Node& value = entry.second;
    // JSON strings are quoted scalars; numbers are plain ones.
    if (value.IsScalar() && value.Tag() != "!") {
      numbers[entry.first.as<std::string>()] = value.as<double>();
    }
    static const std::regex kDuration("([0-9]+)(s|m|h|d)");
    static const std::map<std::string, double> kUnitSeconds = {
        {"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}};
    std::smatch m;
    const std::string text = value.IsScalar() ? value.Scalar() : "";
    if (value.Tag() == "!" && std::regex_match(text, m, kDuration)) {
      numbers[entry.first.as<std::string>() + "Seconds"] =
          std::stod(m[1].str()) * kUnitSeconds.at(m[2].str());
    }
  }
  ASSERT_GT(numbers.size(), 30u);  // The file is the mixin's _config, not a stub.
  std::map<std::string, double> compiled;
  for (const auto& [key, value] : rule_config::kAll) compiled[std::string(key)] = value;
  EXPECT_EQ(compiled, numbers);
  EXPECT_EQ(numbers.at("transferCriticalRatio"), rule_config::kTransferCriticalRatio);
  EXPECT_EQ(numbers.at("transferMinPathRatio"), rule_config::kTransferMinPathRatio);
  EXPECT_EQ(numbers.at("transferWindowSeconds"), rule_config::kTransferWindowSeconds);
}

// The "done when": no absolute transfer floor above 10 MB/s by default; the floor is
// relative to the path.
TEST(RuleThresholds, TheTransferFloorIsRelativeToThePath) {
  EXPECT_LE(rule_config::kTransferMinBytesPerSecond, 10e6);
  EXPECT_GT(rule_config::kTransferMinPathRatio, 0);
  // The field's restore (1.98 GB/s on a 25 GB/s line, 8% of it) is above the floor and below
  // the page's fraction.
  EXPECT_GT(1.98e9, rule_config::kTransferMinPathRatio * 25e9);
  EXPECT_LT(1.98e9 / 25e9, rule_config::kTransferCriticalRatio);
}

}  // namespace
}  // namespace fabric::ladder
