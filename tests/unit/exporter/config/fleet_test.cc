#include "exporter/config/fleet.h"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>
#include <sys/stat.h>

#include "exporter/metrics/fleet_info.h"
#include "exporter/scheduled_probes/probe_runtime.h"
#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

constexpr char kFleet[] =
    "fleet:\n"
    "  self: node-b\n"
    "  nodes:\n"
    "    - {name: node-c, address: 198.18.5.3, interface: ens1f0np0, mtu: 1500}\n"
    "    - {name: node-b, address: 198.18.5.2, interface: ens1f0np0, mtu: 9000}\n"
    "    - {name: node-a, address: 198.18.5.1, interface: ens1f0np0, mtu: 9000}\n";

std::string ErrorOf(const std::string& yaml) {
  try {
    ParseFleet(ConfigNode::LoadString(yaml, "f.yml").Child("fleet"));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(FleetTest, ParsesAndSortsByName) {
  auto fleet = ParseFleet(ConfigNode::LoadString(kFleet, "f.yml").Child("fleet"));
  ASSERT_TRUE(fleet.has_value());
  ASSERT_EQ(fleet->nodes.size(), 3u);
  EXPECT_EQ(fleet->nodes[0].name, "node-a");
  EXPECT_EQ(fleet->SelfIndex(), 1u);
  EXPECT_EQ(fleet->Self().address, "198.18.5.2");
  EXPECT_EQ(fleet->nodes[2].mtu, 1500);
}

TEST(FleetTest, NoSectionIsNoFleet) {
  EXPECT_FALSE(ParseFleet(ConfigNode::LoadString("web: {}\n", "f.yml").Child("fleet")));
}

TEST(FleetTest, InfoSeriesCarryThePathMtu) {
  auto fleet = ParseFleet(ConfigNode::LoadString(kFleet, "f.yml").Child("fleet"));
  MetricSink sink;
  AddFleetInfo(*fleet, sink);
  std::string text = prometheus::TextSerializer().Serialize(sink.TakeSorted());
  EXPECT_NE(text.find("fabric_fleet_node_info{expected_mtu=\"9000\",fabric_address=\"198.18.5.2\","
                      "fabric_interface=\"ens1f0np0\",node=\"node-b\"} 1"),
            std::string::npos)
      << text;
  // node-b (9000) to node-c (1500): the path carries 1500.
  EXPECT_NE(
      text.find("fabric_fleet_peer_info{address=\"198.18.5.3\",expected_interface=\"ens1f0np0\","
                "expected_mtu=\"1500\",peer=\"node-c\"} 1"),
      std::string::npos)
      << text;
  EXPECT_EQ(text.find("peer=\"node-b\""), std::string::npos);
}

TEST(FleetTest, PeerInfoForNamedPeersOnly) {
  auto fleet = ParseFleet(ConfigNode::LoadString(kFleet, "f.yml").Child("fleet"));
  MetricSink sink;
  // This node, a name outside the fleet and the loopback target have no peer series.
  AddFleetPeerInfo(*fleet, {"node-c", "node-b", "loopback", "node-z"}, sink);
  std::string text = prometheus::TextSerializer().Serialize(sink.TakeSorted());
  EXPECT_NE(text.find("peer=\"node-c\""), std::string::npos) << text;
  EXPECT_EQ(text.find("peer=\"node-a\""), std::string::npos) << text;
  EXPECT_EQ(text.find("peer=\"node-b\""), std::string::npos) << text;
  EXPECT_EQ(text.find("loopback"), std::string::npos) << text;
  EXPECT_EQ(text.find("fabric_fleet_node_info"), std::string::npos) << text;
}

constexpr char kTopologyFleet[] =
    "fleet:\n"
    "  self: node-a\n"
    "  nodes:\n"
    "    - {name: node-a, address: 198.18.5.1, rack: r01, plane: p0, role: compute}\n"
    "    - {name: node-b, address: 198.18.5.2, rack: r02, plane: p1}\n"
    "    - {name: node-c, address: 198.18.5.3}\n";

TEST(FleetTest, ParsesTheOptionalTopology) {
  auto fleet = ParseFleet(ConfigNode::LoadString(kTopologyFleet, "f.yml").Child("fleet"));
  ASSERT_TRUE(fleet.has_value());
  EXPECT_EQ(fleet->nodes[0].rack, "r01");
  EXPECT_EQ(fleet->nodes[0].plane, "p0");
  EXPECT_EQ(fleet->nodes[0].role, "compute");
  EXPECT_EQ(fleet->nodes[1].rack, "r02");
  EXPECT_EQ(fleet->nodes[1].role, "");
  EXPECT_EQ(fleet->nodes[2].rack, "");
}

TEST(FleetTest, InfoSeriesCarryTheTopologyOnlyWhereConfigured) {
  auto fleet = ParseFleet(ConfigNode::LoadString(kTopologyFleet, "f.yml").Child("fleet"));
  MetricSink sink;
  AddFleetInfo(*fleet, sink);
  std::string text = prometheus::TextSerializer().Serialize(sink.TakeSorted());
  EXPECT_NE(text.find("fabric_fleet_node_info{expected_mtu=\"\",fabric_address=\"198.18.5.1\","
                      "fabric_interface=\"\",node=\"node-a\",plane=\"p0\",rack=\"r01\","
                      "role=\"compute\"} 1"),
            std::string::npos)
      << text;
  // The peer's own rack and plane (not this node's), so paths group by target rack.
  EXPECT_NE(text.find("fabric_fleet_peer_info{address=\"198.18.5.2\",expected_interface=\"\","
                      "expected_mtu=\"\",peer=\"node-b\",plane=\"p1\",rack=\"r02\"} 1"),
            std::string::npos)
      << text;
  // No topology configured: no topology labels at all, not empty ones.
  EXPECT_NE(text.find("fabric_fleet_peer_info{address=\"198.18.5.3\",expected_interface=\"\","
                      "expected_mtu=\"\",peer=\"node-c\"} 1"),
            std::string::npos)
      << text;
  // kFleet has no topology: its series have none of the keys.
  auto plain = ParseFleet(ConfigNode::LoadString(kFleet, "f.yml").Child("fleet"));
  MetricSink plain_sink;
  AddFleetInfo(*plain, plain_sink);
  std::string plain_text = prometheus::TextSerializer().Serialize(plain_sink.TakeSorted());
  for (const char* key : {"rack=", "plane=", "role="}) {
    EXPECT_EQ(plain_text.find(key), std::string::npos) << plain_text;
  }
}

TEST(FleetTest, ErrorsNameFileLineAndKey) {
  EXPECT_EQ(ErrorOf("fleet:\n  self: x\n  nodes:\n    - {name: a, address: 1.2.3.4}\n"
                    "    - {name: a, address: 1.2.3.5}\n"),
            "f.yml:5:14: key fleet.nodes[1].name: node \"a\" is listed twice");
  EXPECT_EQ(ErrorOf("fleet:\n  self: a\n  nodes:\n    - {name: a, address: node-a.example}\n"),
            "f.yml:4:26: key fleet.nodes[0].address: \"node-a.example\" is not a numeric IPv4 or "
            "IPv6 address");
  EXPECT_EQ(ErrorOf("fleet:\n  self: z\n  nodes:\n    - {name: a, address: 1.2.3.4}\n"),
            "f.yml:2:9: key fleet.self: this node \"z\" is not in fleet.nodes (set fleet.self to "
            "its name there)");
  EXPECT_EQ(ErrorOf("fleet:\n  self: a\n  nodes:\n    - {name: a, address: 1.2.3.4, mtu: 90000}\n"),
            "f.yml:4:40: key fleet.nodes[0].mtu: value 90000 is out of range [576, 65535]");
  EXPECT_EQ(ErrorOf("fleet:\n  self: a\n  nodes:\n    - {name: a, address: 1.2.3.4, rack: \"\"}\n"),
            "f.yml:4:41: key fleet.nodes[0].rack: must not be empty (leave the key out instead)");
  EXPECT_EQ(ErrorOf("fleet:\n  self: a\n  nodes:\n    - {name: a, adress: 1.2.3.4}\n")
                .rfind("f.yml:4:17: key fleet.nodes[0].adress: unknown key", 0),
            0u);
}

TEST(ConfigNodeDurationTest, PrometheusStyleDurations) {
  auto root = ConfigNode::LoadString("a: 90s\nb: 1h30m\nc: 250ms\nd: 5\ne: 2w\n", "d.yml");
  EXPECT_EQ(root.DurationSeconds("a", 0, 1e6), 90);
  EXPECT_EQ(root.DurationSeconds("b", 0, 1e6), 5400);
  EXPECT_DOUBLE_EQ(*root.DurationSeconds("c", 0, 1e6), 0.25);
  EXPECT_THROW(root.DurationSeconds("d", 0, 1e6), ConfigError);
  EXPECT_THROW(root.DurationSeconds("e", 0, 1e6), ConfigError);
  EXPECT_THROW(root.DurationSeconds("a", 0, 60), ConfigError);
}

}  // namespace
}  // namespace fabric

namespace fabric {
namespace {

TEST(ProbeSettingsTest, DefaultsAndValues) {
  auto defaults = ParseProbeSettings(ConfigNode());
  EXPECT_TRUE(defaults.path.enabled);
  EXPECT_EQ(defaults.path.interval_seconds, 60);
  EXPECT_FALSE(defaults.mesh.enabled);  // Off without the TCP probe's responders.
  EXPECT_TRUE(defaults.state_file.empty());
  auto root = ConfigNode::LoadString(
      "probes:\n  state_file: /var/lib/x.yml\n  max_splay: 30s\n  path: {interval: 5m}\n", "p.yml");
  auto settings = ParseProbeSettings(root.Child("probes"));
  EXPECT_EQ(settings.state_file, "/var/lib/x.yml");
  EXPECT_EQ(settings.max_splay_seconds, 30);
  EXPECT_EQ(settings.path.interval_seconds, 300);
}

TEST(ProbeSettingsTest, BudgetIsAShareOfTheHour) {
  EXPECT_EQ(ParseProbeSettings(ConfigNode()).budget, 0.05);
  auto root = ConfigNode::LoadString("probes:\n  budget: 0.1\n", "p.yml");
  EXPECT_EQ(ParseProbeSettings(root.Child("probes")).budget, 0.1);
  for (const char* bad : {"1.5", "-0.1", "five"}) {
    auto wrong = ConfigNode::LoadString(std::string("probes:\n  budget: ") + bad + "\n", "p.yml");
    try {
      ParseProbeSettings(wrong.Child("probes"));
      ADD_FAILURE() << "no error for budget " << bad;
    } catch (const ConfigError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("p.yml:2:11: key probes.budget:", 0), 0u) << e.what();
    }
  }
}

TEST(ProbeSettingsTest, ErrorsNameKey) {
  auto root = ConfigNode::LoadString("probes:\n  path: {intervl: 5m}\n", "p.yml");
  try {
    ParseProbeSettings(root.Child("probes"));
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("p.yml:2:10: key probes.path.intervl: unknown key", 0),
              0u)
        << e.what();
  }
}

TEST(ProbeSettingsTest, TcpNeedsASecretAndARoundThatFitsItsRuns) {
  testing::TestDir dir;
  auto expect_error = [](const std::string& yaml, const std::string& part) {
    try {
      ParseProbeSettings(ConfigNode::LoadString(yaml, "p.yml").Child("probes"));
      ADD_FAILURE() << "no error for " << yaml;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  expect_error("probes:\n  tcp: {round: 2m}\n",
               "key probes.secret_file: the TCP probe and the responder need a shared secret");
  // Calibration is probe time: 2 rungs x 2 directions x (5 s + 1 s + 6 x 1 s) + 2 s > 45 s;
  // without it one session per rung measures both directions: 2 x 6 s + 2 s fits.
  expect_error("probes:\n  secret_file: /nonexistent\n  tcp: {round: 45s}\n",
               "key probes.tcp.round: a round must fit its runs");
  expect_error(
      "probes:\n  secret_file: /nonexistent\n  tcp: {round: 45s, calibration: {enabled: false}}\n",
      "key probes.secret_file:");
  expect_error("probes:\n  secret_file: /nonexistent\n  tcp: {round: 10s, duration: 10s}\n",
               "key probes.tcp.round: a round must fit its runs");
  expect_error("probes:\n  secret_file: /nonexistent\n  tcp: {round: 10m}\n",
               "key probes.secret_file:");
  auto secret = dir.Write("secret", "0123456789abcdef0123456789abcdef\n");
  ::chmod(secret.c_str(), 0600);
  auto settings = ParseProbeSettings(
      ConfigNode::LoadString(
          "probes:\n  secret_file: " + secret + "\n  tcp: {round: 5m, streams: 16}\n", "p.yml")
          .Child("probes"));
  EXPECT_TRUE(settings.tcp.enabled);
  EXPECT_TRUE(settings.responder.enabled);  // On with the TCP probe.
  EXPECT_TRUE(settings.mesh.enabled);       // So is the latency mesh.
  EXPECT_EQ(settings.tcp.streams, 16u);
  EXPECT_EQ(settings.tcp.round_seconds, 300);
  EXPECT_FALSE(settings.tcp.secret.empty());
}

TEST(ProbeSettingsTest, StorageNeedsADirectory) {
  try {
    ParseProbeSettings(
        ConfigNode::LoadString("probes:\n  storage: {interval: 1h}\n", "p.yml").Child("probes"));
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("key probes.storage.directory: the storage probe needs"),
              std::string::npos)
        << e.what();
  }
  auto settings = ParseProbeSettings(
      ConfigNode::LoadString("probes:\n  storage: {directory: /data, size: 2097152}\n", "p.yml")
          .Child("probes"));
  EXPECT_TRUE(settings.storage.enabled);
  EXPECT_EQ(settings.storage.size_bytes, 2097152u);
  EXPECT_FALSE(settings.tcp.enabled);
}

TEST(ProbeSettingsTest, RdmaRunsInTheTcpRounds) {
  try {
    ParseProbeSettings(
        ConfigNode::LoadString("probes:\n  rdma: {qps: 8}\n", "p.yml").Child("probes"));
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("key probes.rdma.enabled: the RDMA rung runs in the TCP"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace fabric
