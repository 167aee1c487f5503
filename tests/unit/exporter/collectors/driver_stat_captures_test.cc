// The driver statistics plan over real `ethtool -S` captures
// (tests/fixtures/ethtool-captures: a ConnectX mlx5_core port and an E810 ice
// port, as their drivers report them): the typed series carry exactly the
// raw counters they stand for, read from the capture independently of the
// classifier, so a driver's real naming (not the names the table was written
// from) is what is checked.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "common/parse/ethtool_parse.h"
#include "exporter/collectors/driver_stat_plan.h"
#include "exporter/metrics/metric_sink.h"

namespace fabric {
namespace {

const std::string kCaptures = std::string(FABRIC_SOURCE_DIR) + "/tests/fixtures/ethtool-captures/";

std::string ReadCapture(const std::string& name) {
  std::ifstream in(kCaptures + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// "name: value" of every line, by the test's own reading of the format.
std::map<std::string, double> RawCounters(const std::string& text) {
  std::map<std::string, double> raw;
  std::istringstream lines(text);
  std::string line;
  static const std::regex kLine(R"(^\s*(\S+):\s+(\d+)\s*$)");
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_match(line, m, kLine)) raw[m[1]] = std::stod(m[2]);
  }
  return raw;
}

// Series of the plan's output, keyed "metric{label=value,...}" with the
// labels in the order the sink sorts them.
std::map<std::string, double> Typed(const std::string& driver, const std::string& capture) {
  auto stats = ParseEthtoolStats(ReadCapture(capture), capture);
  EXPECT_TRUE(stats.ok()) << stats.error().message;
  DriverStatPlans plans(/*queue_stats=*/true, std::nullopt);
  MetricSink sink;
  plans.Emit("eth9", driver, *stats, sink);
  std::map<std::string, double> out;
  for (const auto& family : sink.TakeSorted()) {
    for (const auto& metric : family.metric) {
      std::string key = family.name + "{";
      for (const auto& label : metric.label) {
        if (label.name == "device") continue;
        key += label.name + "=" + label.value + ",";
      }
      key += "}";
      out[key] = metric.counter.value;
    }
  }
  return out;
}

// Each `expected` series (typed key -> raw counter name) is in the output
// with exactly the raw counter's value.
void ExpectTypedAsRaw(const std::map<std::string, double>& raw,
                      const std::map<std::string, double>& typed,
                      const std::map<std::string, std::string>& expected) {
  for (const auto& [series, counter] : expected) {
    ASSERT_TRUE(raw.count(counter)) << counter << " not in the capture";
    ASSERT_TRUE(typed.count(series)) << series << " not typed from " << counter;
    EXPECT_EQ(typed.at(series), raw.at(counter)) << series;
  }
}

TEST(DriverStatCapturesTest, Mlx5TypedSeriesAreItsRawCounters) {
  const auto raw = RawCounters(ReadCapture("mlx5_core.txt"));
  const auto typed = Typed("mlx5_core", "mlx5_core.txt");
  ASSERT_GT(raw.size(), 700u);  // The whole capture was read.
  const std::map<std::string, std::string> expected = {
      {"fabric_netdev_driver_pause_frames_total{direction=rx,}", "rx_pause_ctrl_phy"},
      {"fabric_netdev_driver_pause_frames_total{direction=tx,}", "tx_pause_ctrl_phy"},
      {"fabric_netdev_phy_discards_total{direction=rx,}", "rx_discards_phy"},
      {"fabric_netdev_phy_discards_total{direction=tx,}", "tx_discards_phy"},
      {"fabric_netdev_out_of_buffer_drops_total{direction=rx,}", "rx_out_of_buffer"},
      {"fabric_netdev_pci_signal_integrity_events_total{direction=rx,}", "rx_pci_signal_integrity"},
      {"fabric_netdev_pci_signal_integrity_events_total{direction=tx,}", "tx_pci_signal_integrity"},
      {"fabric_netdev_phy_crc_errors_total{direction=rx,}", "rx_crc_errors_phy"},
      {"fabric_netdev_phy_corrected_bit_errors_total{direction=rx,}", "rx_corrected_bits_phy"},
  };
  ExpectTypedAsRaw(raw, typed, expected);
  // This port runs without PFC: mlx5 then reports no per-priority pause
  // counters (only global pause), and none is made up.
  for (const auto& [series, value] : typed) {
    EXPECT_EQ(series.find("priority_pause"), std::string::npos) << series;
  }
  for (const auto& [name, value] : raw) {
    EXPECT_FALSE(std::regex_match(name, std::regex(R"((rx|tx)_prio\d+_pause)"))) << name;
  }
  // Per queue (queue_stats: true): every rxN_packets of the capture, and
  // their sum is the port's received packets the queues saw.
  static const std::regex kRxQueue(R"(rx(\d+)_packets)");
  double raw_sum = 0, typed_sum = 0;
  int queues = 0;
  std::smatch m;
  for (const auto& [name, value] : raw) {
    if (!std::regex_match(name, m, kRxQueue)) continue;
    const std::string series =
        "fabric_netdev_queue_packets_total{direction=rx,queue=" + m[1].str() + ",}";
    ASSERT_TRUE(typed.count(series)) << series;
    EXPECT_EQ(typed.at(series), value);
    raw_sum += value;
    typed_sum += typed.at(series);
    ++queues;
  }
  EXPECT_GT(queues, 8);
  EXPECT_GT(raw_sum, 0);
  EXPECT_EQ(typed_sum, raw_sum);
}

TEST(DriverStatCapturesTest, IceTypedSeriesAreItsRawCounters) {
  const auto raw = RawCounters(ReadCapture("ice.txt"));
  const auto typed = Typed("ice", "ice.txt");
  ASSERT_GT(raw.size(), 500u);
  const std::map<std::string, std::string> expected = {
      {"fabric_netdev_driver_pause_frames_total{direction=rx,}", "link_xoff_rx.nic"},
      {"fabric_netdev_driver_pause_frames_total{direction=tx,}", "link_xoff_tx.nic"},
  };
  ExpectTypedAsRaw(raw, typed, expected);
  for (int prio = 0; prio < 8; ++prio) {
    for (const std::string dir : {"rx", "tx"}) {
      const std::string counter = dir + "_priority_" + std::to_string(prio) + "_xoff.nic";
      const std::string series =
          "fabric_netdev_driver_priority_pause_frames_total{direction=" + dir +
          ",priority=" + std::to_string(prio) + ",}";
      ASSERT_TRUE(raw.count(counter)) << counter;
      ASSERT_TRUE(typed.count(series)) << series;
      EXPECT_EQ(typed.at(series), raw.at(counter));
    }
  }
  static const std::regex kRxQueue(R"(rx_queue_(\d+)_packets)");
  double raw_sum = 0, typed_sum = 0;
  std::smatch m;
  for (const auto& [name, value] : raw) {
    if (!std::regex_match(name, m, kRxQueue)) continue;
    const std::string series =
        "fabric_netdev_queue_packets_total{direction=rx,queue=" + m[1].str() + ",}";
    ASSERT_TRUE(typed.count(series)) << series;
    raw_sum += value;
    typed_sum += typed.at(series);
  }
  EXPECT_GT(raw_sum, 0);
  EXPECT_EQ(typed_sum, raw_sum);
}

}  // namespace
}  // namespace fabric
