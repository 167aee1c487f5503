// fleet.nodes_file: the fleet list in a file of its own (YAML or CSV), its errors, and the
// fleet digest every node publishes and compares with its peers.
#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <string>

#include "exporter/config/fleet.h"
#include "exporter/metrics/fleet_info.h"
#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

constexpr char kYamlNodes[] =
    "nodes:\n"
    "  - {name: gpu-002, address: 198.18.0.2, interface: ens1f0np0, mtu: 9000, rack: r01}\n"
    "  - {name: gpu-001, address: 198.18.0.1, interface: ens1f0np0, mtu: 9000, rack: r01}\n"
    "  - {name: gpu-003, address: 198.18.1.3, interface: ens1f0np0, mtu: 9000, rack: r02,\n"
    "     plane: p1, role: compute}\n";

// The same three nodes as an inventory export: other column order, other row order.
constexpr char kCsvNodes[] =
    "rack,name,address,interface,mtu,plane,role\n"
    "r02,gpu-003,198.18.1.3,ens1f0np0,9000,p1,compute\n"
    "r01,gpu-001,198.18.0.1,ens1f0np0,9000,,\n"
    "r01,gpu-002,198.18.0.2,ens1f0np0,9000,,\n";

std::optional<Fleet> Load(const testing::TestDir& dir, const std::string& config) {
  return ParseFleet(
      ConfigNode::LoadFile(dir.Write("etc/fabric_exporter.yml", config)).Child("fleet"));
}

std::string ErrorOf(const testing::TestDir& dir, const std::string& config) {
  try {
    Load(dir, config);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(FleetNodesFileTest, YamlFileRelativeToTheConfig) {
  testing::TestDir dir;
  dir.Write("etc/fleet.yml", kYamlNodes);
  auto fleet = Load(dir, "fleet:\n  self: gpu-002\n  nodes_file: fleet.yml\n");
  ASSERT_TRUE(fleet.has_value());
  ASSERT_EQ(fleet->nodes.size(), 3u);
  EXPECT_EQ(fleet->nodes[0].name, "gpu-001");  // Sorted by name, as inline.
  EXPECT_EQ(fleet->Self().address, "198.18.0.2");
  EXPECT_EQ(fleet->nodes[2].role, "compute");
  EXPECT_EQ(fleet->nodes_file, (dir.path() / "etc/fleet.yml").string());
}

TEST(FleetNodesFileTest, CsvFileGivesTheSameFleetAndDigest) {
  testing::TestDir dir;
  dir.Write("etc/fleet.yml", kYamlNodes);
  dir.Write("inventory/fleet.csv", kCsvNodes);
  auto yaml = Load(dir, "fleet:\n  self: gpu-001\n  nodes_file: fleet.yml\n");
  auto csv = Load(dir, "fleet:\n  self: gpu-001\n  nodes_file: ../inventory/fleet.csv\n");
  ASSERT_TRUE(yaml && csv);
  ASSERT_EQ(csv->nodes.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(csv->nodes[i].name, yaml->nodes[i].name);
    EXPECT_EQ(csv->nodes[i].address, yaml->nodes[i].address);
    EXPECT_EQ(csv->nodes[i].mtu, yaml->nodes[i].mtu);
    EXPECT_EQ(csv->nodes[i].rack, yaml->nodes[i].rack);
    EXPECT_EQ(csv->nodes[i].plane, yaml->nodes[i].plane);
  }
  EXPECT_EQ(csv->digest, yaml->digest);
  EXPECT_EQ(csv->digest.size(), 16u);
}

TEST(FleetNodesFileTest, InlineAndFileListsOfTheSameNodesAgree) {
  testing::TestDir dir;
  dir.Write("etc/fleet.yml", kYamlNodes);
  auto file = Load(dir, "fleet:\n  self: gpu-001\n  nodes_file: fleet.yml\n");
  auto inline_list = Load(dir, std::string("fleet:\n  self: gpu-003\n") +
                                   "  nodes:\n"
                                   "    - {name: gpu-003, address: 198.18.1.3, interface: "
                                   "ens1f0np0, mtu: 9000, rack: r02, plane: p1, role: compute}\n"
                                   "    - {name: gpu-001, address: 198.18.0.1, interface: "
                                   "ens1f0np0, mtu: 9000, rack: r01}\n"
                                   "    - {name: gpu-002, address: 198.18.0.2, interface: "
                                   "ens1f0np0, mtu: 9000, rack: r01}\n");
  ASSERT_TRUE(file && inline_list);
  // Another order and another `self`: one fleet, one digest.
  EXPECT_EQ(file->digest, inline_list->digest);
  EXPECT_TRUE(file->nodes_file.size() > 0 && inline_list->nodes_file.empty());
}

TEST(FleetDigestTest, EveryKeyOfEveryNodeCounts) {
  const std::vector<FleetNode> base = {
      {"a", "198.18.0.1", "eth0", 9000, "r1", "p0", "compute"},
      {"b", "198.18.0.2", "eth0", 9000, "r1", "p0", "compute"},
  };
  const std::string digest = FleetDigest(base);
  EXPECT_EQ(digest, FleetDigest({base[1], base[0]}));  // Order does not count.
  // The canonical address: one address written two ways is one fleet.
  std::vector<FleetNode> v6 = {{"a", "FE80::0001", "", 0}};
  EXPECT_EQ(FleetDigest(v6), FleetDigest({{"a", "fe80::1", "", 0}}));
  std::vector<std::string> seen = {digest};
  for (int key = 0; key < 7; ++key) {
    std::vector<FleetNode> changed = base;
    FleetNode& n = changed[1];
    switch (key) {
      case 0:
        n.name = "c";
        break;
      case 1:
        n.address = "198.18.0.3";
        break;
      case 2:
        n.interface = "eth1";
        break;
      case 3:
        n.mtu = 1500;
        break;
      case 4:
        n.rack = "r2";
        break;
      case 5:
        n.plane = "p1";
        break;
      case 6:
        n.role = "storage";
        break;
    }
    const std::string other = FleetDigest(changed);
    EXPECT_EQ(std::count(seen.begin(), seen.end(), other), 0) << "key " << key;
    seen.push_back(other);
  }
  // A node more or fewer.
  EXPECT_NE(FleetDigest({base[0]}), digest);
  // Values cannot run into each other: "ab"+"" is not "a"+"b".
  EXPECT_NE(FleetDigest({{"x", "198.18.0.1", "ab", 0, "", "", ""}}),
            FleetDigest({{"x", "198.18.0.1", "a", 0, "b", "", ""}}));
  // Pinned: the digest is an interface between versions (peers compare it), so a change of
  // its definition must be deliberate. This value is docs/scale.md's recipe computed by
  // Python's hashlib: sha256("fabric-ladder fleet v1\n1:a;10:198.18.0.1;0:;0:;0:;0:;0:;\n").
  EXPECT_EQ(FleetDigest({{"a", "198.18.0.1", "", 0}}), "85f7c8abe0eade18");
}

TEST(FleetNodesFileTest, FormattedFileReadsBackToTheSameNodes) {
  std::vector<FleetNode> nodes = {
      {"gpu-001", "198.18.0.1", "ens1f0np0", 9000, "r01", "", "compute"},
      {"odd \"name\": #1", "fd00::1", "", 0, "", "p:1", ""},
  };
  const std::string text = FormatFleetNodesYaml(nodes, {"generated for a test"});
  EXPECT_EQ(text.rfind("# generated for a test\nnodes:\n", 0), 0u) << text;
  auto back = ParseFleetNodesText(text, "gen.yml", false);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].name, "odd \"name\": #1");
  EXPECT_EQ(back[1].plane, "p:1");
  EXPECT_EQ(back[0].role, "compute");
  EXPECT_EQ(FleetDigest(back), FleetDigest(nodes));
}

TEST(FleetNodesFileTest, ErrorsNameTheNodesFileLineAndKey) {
  testing::TestDir dir;
  const std::string etc = (dir.path() / "etc").string();
  dir.Write("etc/dup.yml",
            "nodes:\n  - {name: a, address: \"fd00::1\"}\n"
            "  - {name: b, address: \"fd00:0::1\"}\n");
  dir.Write("etc/bad.csv", "name,address,mtu\na,198.18.0.1,9000\nb,198.18.0.2,90000\n");
  dir.Write("etc/unknown.csv", "name,address,racks\na,198.18.0.1,r1\n");
  dir.Write("etc/noaddr.csv", "name,address\na,198.18.0.1\nb,\n");
  dir.Write("etc/list.yml", "- {name: a, address: 198.18.0.1}\n");
  dir.Write("etc/empty.yml", "nodes: []\n");
  struct Case {
    std::string config;
    std::string error;
  };
  for (const Case& c : {
           Case{
               "fleet:\n  self: a\n  nodes_file: missing.yml\n",
               etc + "/fabric_exporter.yml:3:15: key fleet.nodes_file: cannot read the nodes file"},
           // One address written two ways.
           Case{"fleet:\n  self: a\n  nodes_file: dup.yml\n",
                etc + "/dup.yml:3:24: key nodes[1].address: address fd00:0::1 is listed twice"},
           Case{"fleet:\n  self: a\n  nodes_file: bad.csv\n",
                etc + "/bad.csv:3:14: column mtu: value 90000 is out of range [576, 65535]"},
           Case{"fleet:\n  self: a\n  nodes_file: unknown.csv\n",
                etc + "/unknown.csv:1: column racks: unknown column (known: name, address,"},
           Case{"fleet:\n  self: a\n  nodes_file: noaddr.csv\n",
                etc + "/noaddr.csv:3:3: column address: every node needs its fabric address"},
           Case{"fleet:\n  self: a\n  nodes_file: list.yml\n",
                etc + "/list.yml:1:1: key (top level): expected a mapping"},
           Case{"fleet:\n  self: a\n  nodes_file: empty.yml\n",
                etc + "/empty.yml: key nodes: list at least this node"},
           Case{"fleet:\n  self: z\n  nodes_file: bad.csv\n", ""},  // The mtu error comes first.
           Case{
               "fleet:\n  self: a\n  nodes_file: dup.yml\n  nodes: [{name: a, address: 1.2.3.4}]\n",
               etc + "/fabric_exporter.yml:3:15: key fleet.nodes_file: give the list inline"},
           Case{"fleet:\n  self: a\n  nodes_file: \"\"\n",
                etc + "/fabric_exporter.yml:3:15: key fleet.nodes_file: must name a file"},
       }) {
    const std::string error = ErrorOf(dir, c.config);
    if (c.error.empty()) {
      EXPECT_NE(error, "") << c.config;
      continue;
    }
    EXPECT_EQ(error.rfind(c.error, 0), 0u) << "config:\n" << c.config << "error: " << error;
  }
  dir.Write("etc/ok.csv", "name,address\na,198.18.0.1\n");
  EXPECT_EQ(ErrorOf(dir, "fleet:\n  self: z\n  nodes_file: ok.csv\n"),
            etc + "/fabric_exporter.yml:2:9: key fleet.self: this node \"z\" is not in " + etc +
                "/ok.csv (set fleet.self to its name there)");
}

TEST(FleetNodesFileTest, EveryNodePublishesTheDigest) {
  testing::TestDir dir;
  dir.Write("etc/fleet.yml", kYamlNodes);
  auto fleet = Load(dir, "fleet:\n  self: gpu-002\n  nodes_file: fleet.yml\n");
  MetricSink sink;
  AddFleetNodeInfo(*fleet, sink);
  std::string text = prometheus::TextSerializer().Serialize(sink.TakeSorted());
  EXPECT_NE(text.find("fabric_fleet_digest_info{digest=\"" + fleet->digest + "\"} 1"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace fabric
