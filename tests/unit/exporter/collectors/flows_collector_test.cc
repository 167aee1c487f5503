// The flows collector as the exporter builds it: config validation with
// file:line:key errors, the recorded backend, and no live sockets ever on a
// fixture tree.
#include "exporter/collectors/flows_collector.h"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <string>

#include "exporter/config/fleet.h"
#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

std::string Collect(Collector& collector) {
  MetricSink sink;
  auto status = collector.Collect(sink);
  EXPECT_TRUE(status.ok()) << status.error().message;
  return prometheus::TextSerializer().Serialize(sink.TakeSorted());
}

std::unique_ptr<Collector> Make(const ConfigNode& config, const SysRoot& root) {
  ConfigNode settings = config.Child("collectors").Child("flows");
  return MakeFlowsCollector({root, settings});
}

std::string ConfigErrorOf(const std::string& yaml) {
  testing::TestDir dir;
  SysRoot root(dir.path().string(), dir.path().string());
  try {
    Make(ConfigNode::LoadString(yaml, "test.yml"), root);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(FlowsCollectorTest, BadSettingsNameFileLineAndKey) {
  struct Case {
    const char* yaml;
    const char* want;
  };
  const Case cases[] = {
      {"collectors:\n  flows:\n    local_addresses: [10.0.0.0/33]\n",
       "test.yml:3:22: key collectors.flows.local_addresses: bad prefix length"},
      {"collectors:\n  flows:\n    bulk_threshold_bytes_per_second: -1\n",
       "key collectors.flows.bulk_threshold_bytes_per_second: value -1 is out of range"},
      {"collectors:\n  flows:\n    applications:\n      backup: ['70000']\n",
       "key collectors.flows.applications.backup: expected ports like 22 or 6800-7300"},
      {"collectors:\n  flows:\n    applications:\n      backup: ['9-5']\n",
       "key collectors.flows.applications.backup: expected ports"},
      {"collectors:\n  flows:\n    applications:\n      other: ['22']\n",
       "key collectors.flows.applications.other: reserved application name"},
      {"collectors:\n  flows:\n    applications:\n      backup: 22\n",
       "key collectors.flows.applications.backup: expected a list of strings"},
      {"collectors:\n  flows:\n    recording: missing.rec\n",
       "key collectors.flows.recording: open"},
      {"collectors:\n  flows:\n    max_series: 0\n", "key collectors.flows.max_series"},
      // Zero would make every idle socket "bulk".
      {"collectors:\n  flows:\n    bulk_threshold_bytes_per_second: 0\n",
       "key collectors.flows.bulk_threshold_bytes_per_second: value 0 is out of range"},
  };
  for (const auto& c : cases) {
    std::string error = ConfigErrorOf(c.yaml);
    EXPECT_NE(error.find(c.want), std::string::npos) << c.yaml << " -> " << error;
  }
}

TEST(FlowsCollectorTest, AcceptsAFullSection) {
  EXPECT_EQ(ConfigErrorOf("collectors:\n  flows:\n"
                          "    local_addresses: [198.18.9.0/24, 'fd00::/8']\n"
                          "    interfaces: [fab0]\n"
                          "    bulk_threshold_bytes_per_second: 5e5\n"
                          "    max_series: 50\n"
                          "    applications:\n      backup: ['10000-10010', 12]\n"),
            "");
}

TEST(FlowsCollectorTest, FixtureTreeWithoutRecordingReportsNothing) {
  testing::TestDir dir;  // A plain directory, not a mounted procfs.
  SysRoot root(dir.path().string(), dir.path().string());
  auto collector = Make(ConfigNode(), root);
  EXPECT_EQ(Collect(*collector), "");
}

TEST(FlowsCollectorTest, RecordingReplaysTheSameExpositionEveryScrape) {
  testing::TestDir dir;
  dir.Write("tree/flows.rec",
            "snapshot 1\naddress fab0 198.18.9.1\n"
            "socket 198.18.9.1:40000 198.18.9.2:873 cookie=1 bytes_acked=0 bytes_received=0 "
            "busy_us=0 rwnd_limited_us=0 sndbuf_limited_us=0 sndbuf=212992\n"
            "snapshot 3\naddress fab0 198.18.9.1\n"
            "socket 198.18.9.1:40000 198.18.9.2:873 cookie=1 bytes_acked=600000000 "
            "bytes_received=0 busy_us=2000000 rwnd_limited_us=0 sndbuf_limited_us=1800000 "
            "sndbuf=212992\n");
  std::string config =
      dir.Write("tree/fabric_exporter.yml", "collectors:\n  flows:\n    recording: flows.rec\n");
  SysRoot root(dir.path().string(), dir.path().string());
  auto collector = Make(ConfigNode::LoadFile(config), root);
  std::string first = Collect(*collector);
  EXPECT_EQ(first, Collect(*collector));
  const std::string labels = "{application=\"rsync\",limiter=\"send_buffer\",peer=\"198.18.9.2\"}";
  EXPECT_NE(first.find("fabric_flows_goodput_bytes_per_second" + labels + " 300000000"),
            std::string::npos)
      << first;
  EXPECT_NE(first.find("fabric_flows_best_flow_window_bytes{application=\"rsync\",limiter="
                       "\"send_buffer\",peer=\"198.18.9.2\",window=\"send_buffer\"} 212992"),
            std::string::npos)
      << first;
  // The counters: one transfer per peer, application and direction, and the
  // flow-seconds each limiter held it (1.8 of 2 s send_buffer-limited).
  EXPECT_NE(first.find("fabric_flows_transferred_bytes_total{application=\"rsync\","
                       "direction=\"send\",peer=\"198.18.9.2\"} 600000000"),
            std::string::npos)
      << first;
  EXPECT_NE(first.find("fabric_flows_limited_seconds_total{application=\"rsync\","
                       "limiter=\"send_buffer\",peer=\"198.18.9.2\"} 1.8"),
            std::string::npos)
      << first;
  EXPECT_NE(first.find("fabric_flows_limited_seconds_total{application=\"rsync\","
                       "limiter=\"network\",peer=\"198.18.9.2\"} 0.2"),
            std::string::npos)
      << first;
}

// One scrape of a flows collector replaying two snapshots 2 s apart in
// which this node (198.18.9.1) sent 600 MB over each of two sockets, to
// `first` and to `second` (each "address:port"), as the exporter builds it
// from a config file naming the recording.
std::string ScrapeTwoFlows(const std::string& first, const std::string& second, const Fleet* fleet,
                           uint16_t probe_port) {
  testing::TestDir dir;
  auto sockets = [&](const char* acked, const char* busy) {
    return "socket 198.18.9.1:40000 " + first + " cookie=1 bytes_acked=" + acked +
           " bytes_received=0 busy_us=" + busy + " rwnd_limited_us=0 sndbuf_limited_us=0\n" +
           "socket 198.18.9.1:40001 " + second + " cookie=2 bytes_acked=" + acked +
           " bytes_received=0 busy_us=" + busy + " rwnd_limited_us=0 sndbuf_limited_us=0\n";
  };
  dir.Write("tree/flows.rec", "snapshot 1\naddress fab0 198.18.9.1\n" + sockets("0", "0") +
                                  "snapshot 3\naddress fab0 198.18.9.1\n" +
                                  sockets("600000000", "2000000"));
  std::string config =
      dir.Write("tree/fabric_exporter.yml", "collectors:\n  flows:\n    recording: flows.rec\n");
  SysRoot root(dir.path().string(), dir.path().string());
  ConfigNode file = ConfigNode::LoadFile(config);
  ConfigNode settings = file.Child("collectors").Child("flows");
  auto collector = MakeFlowsCollector({root, settings, fleet, probe_port});
  return Collect(*collector);
}

// The probe's own flows are named by the configured probe port, so the
// transfers rung (which leaves application="fabric_probe" out) never counts
// the instrument; the default port is then an ordinary one.
TEST(FlowsCollectorTest, TheProbesOwnFlowsFollowTheConfiguredProbePort) {
  const std::string text = ScrapeTwoFlows("198.18.9.2:19878", "198.18.9.3:9878", nullptr, 19878);
  EXPECT_NE(text.find("fabric_flows_goodput_bytes_per_second{application=\"fabric_probe\","
                      "limiter=\"network\",peer=\"198.18.9.2\"}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("fabric_flows_goodput_bytes_per_second{application=\"other\","
                      "limiter=\"network\",peer=\"198.18.9.3\"}"),
            std::string::npos)
      << text;
}

// Flows to a fleet member carry its name as `target` (the rules' path label,
// with no join on the fleet's peer info); other hosts have no target.
TEST(FlowsCollectorTest, FleetPeersCarryTheirNameAsTarget) {
  Fleet fleet{"node-a",
              {{"node-a", "198.18.9.1", "fab0", 9000}, {"node-b", "198.18.9.2", "fab0", 9000}},
              "",
              ""};
  const std::string text = ScrapeTwoFlows("198.18.9.2:873", "198.18.9.7:873", &fleet, 9878);
  EXPECT_NE(text.find("fabric_flows_goodput_bytes_per_second{application=\"rsync\","
                      "limiter=\"network\",peer=\"198.18.9.2\",target=\"node-b\"}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("fabric_flows_goodput_bytes_per_second{application=\"rsync\","
                      "limiter=\"network\",peer=\"198.18.9.7\"}"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("target=\"node-a\""), std::string::npos) << text;
}

}  // namespace
}  // namespace fabric
