#include "exporter/ladder/ladder_model.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "exporter/ladder/ladder_text.h"
#include "exporter/ladder/node_ladders.h"

namespace fabric::ladder {
namespace {

constexpr double kNow = 1764500000;

using probe::ProbeValue;
using probe::Verdict;

// A successful record of a rung by its labels.
ProbeRecord Rung(const std::string& probe, std::string target, const std::string& direction,
                 double rate, std::map<Verdict, bool> verdicts = {}) {
  ProbeRecord r;
  r.key = {*probe::RungFromLabel(probe), std::move(target),
           *probe::RecordDirectionFromName(direction)};
  r.timestamp_seconds = kNow - 60;
  r.success = true;
  r.values[ProbeValue::kThroughput] = rate;
  r.verdicts = std::move(verdicts);
  return r;
}

// A 100 GbE path node-a -> node-b: every rung measured.
LadderInput HealthyPath() {
  LadderInput in;
  in.node = "node-a";
  in.peer = "node-b";
  in.now_seconds = kNow;
  in.facts.interface = "ens1f0np0";
  in.facts.line_rate = 12.5e9;
  in.facts.pcie_address = "0000:3b:00.0";
  in.facts.pcie_current = 31.5e9;
  in.facts.pcie_width = 16;
  in.records = {Rung("rdma", "node-b", "send", 12.0e9),
                Rung("tcp_multi", "node-b", "send", 11.5e9),
                Rung("tcp_multi", "node-b", "receive", 11.0e9),
                Rung("tcp_single", "node-b", "send", 4.7e9, {{Verdict::kCpuBound, true}}),
                Rung("tcp_multi", "node-c", "send", 1e9),  // Another path: ignored here.
                Rung("storage_read", "/data", "", 6.4e9),
                Rung("storage_write", "/data", "", 13e9)};
  return in;
}

const Layer& LayerOf(const Ladder& l, const std::string& id) {
  auto it = std::find_if(l.layers.begin(), l.layers.end(),
                         [&](const Layer& layer) { return layer.id == id; });
  EXPECT_NE(it, l.layers.end()) << id;
  return *it;
}

std::string BindingId(const Ladder& l) { return l.binding < 0 ? "" : l.layers[l.binding].id; }

TEST(LadderModel, OneLayerPerRungInLadderOrder) {
  Ladder l = BuildLadder(HealthyPath());
  std::vector<std::string> ids;
  for (const auto& layer : l.layers) ids.push_back(layer.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"line", "pcie", "rdma", "tcp_multi", "tcp_single",
                                           "storage_read", "storage_write", "transfers"}));
}

TEST(LadderModel, WorseDirectionIsTheLayerAndTheLowestCeilingBinds) {
  Ladder l = BuildLadder(HealthyPath());
  EXPECT_DOUBLE_EQ(*LayerOf(l, "tcp_multi").bytes_per_second, 11.0e9);
  EXPECT_DOUBLE_EQ(*LayerOf(l, "tcp_multi").line_fraction, 11.0 / 12.5);
  // tcp_single (4.7e9) is lower but a per-stream property of the tool: never binding.
  EXPECT_EQ(BindingId(l), "storage_read");
  EXPECT_EQ(l.layers[l.network_binding].id, "tcp_multi");
  EXPECT_NE(l.binding_text.find("storage read at 51.2 Gbit/s, 51% of line rate"), std::string::npos)
      << l.binding_text;
  EXPECT_NE(l.binding_text.find("On the network alone: N-stream TCP at 88.0 Gbit/s"),
            std::string::npos)
      << l.binding_text;
}

TEST(LadderModel, VerdictsAndCpuBoundSingleStreamShape) {
  Ladder l = BuildLadder(HealthyPath());
  EXPECT_EQ(LayerOf(l, "tcp_single").verdicts, std::vector<std::string>{"cpu_bound"});
  EXPECT_TRUE(LayerOf(l, "tcp_multi").self_checked);
  EXPECT_TRUE(LayerOf(l, "tcp_multi").verdicts.empty());
  EXPECT_EQ(l.shapes,
            std::vector<std::string>{"single stream CPU-bound: a harness ceiling, not the fabric"});
  EXPECT_NE(VerdictSummary(l).find("1-stream TCP: CPU-bound"), std::string::npos);
}

TEST(LadderModel, UnknownLineRateScalesToTheBestLayerAndSaysSo) {
  LadderInput in = HealthyPath();
  in.facts.line_rate.reset();
  in.facts.interface = "veth0";
  in.facts.pcie_current.reset();
  Ladder l = BuildLadder(in);
  EXPECT_FALSE(LayerOf(l, "line").bytes_per_second);
  EXPECT_EQ(LayerOf(l, "line").status, "unknown: veth0 reports no speed");
  EXPECT_FALSE(LayerOf(l, "tcp_multi").line_fraction);
  EXPECT_DOUBLE_EQ(l.scale_bytes_per_second, 13e9);
  EXPECT_NE(l.scale_note.find("bars are scaled to the best measured layer"), std::string::npos);
  EXPECT_EQ(BindingId(l), "storage_read");
}

TEST(LadderModel, FailuresAndMissingRungsSayWhy) {
  LadderInput in = HealthyPath();
  in.records[0].success = false;
  in.records[0].failure_reason = "no_device";
  in.records.erase(in.records.begin() + 5, in.records.end());  // No storage results.
  in.absent_reasons[probe::Rung::kStorageRead] = "not run (no --storage)";
  Ladder l = BuildLadder(in);
  EXPECT_FALSE(LayerOf(l, "rdma").bytes_per_second);
  EXPECT_EQ(LayerOf(l, "rdma").status, "no RDMA device on this node");
  EXPECT_EQ(LayerOf(l, "storage_read").status, "not run (no --storage)");
  EXPECT_EQ(LayerOf(l, "storage_write").status, "not configured");
  EXPECT_EQ(BindingId(l), "tcp_multi");
}

TEST(LadderModel, NeverRunIsNotAFailure) {
  LadderInput in = HealthyPath();
  for (auto& r : in.records) r.timestamp_seconds = 0;
  Ladder l = BuildLadder(in);
  EXPECT_EQ(LayerOf(l, "tcp_multi").status, "not run yet");
  EXPECT_EQ(BindingId(l), "line");  // Only the passive layers have numbers.
}

TEST(LadderModel, ShapesInWords) {
  LadderInput in = HealthyPath();
  in.facts.pcie_slot_limited = true;
  in.facts.pcie_width = 4;
  in.facts.pcie_current = 7.88e9;
  in.facts.pcie_capable = 31.5e9;
  in.records[2].verdicts[Verdict::kReceiverWindowLimited] = true;
  in.records[2].values[ProbeValue::kMinRtt] = 180e-6;
  ProbeRecord path;
  path.key = {probe::Rung::kPath, "node-b", probe::Direction::kNone};
  path.timestamp_seconds = kNow - 10;
  path.success = true;
  path.values = {{ProbeValue::kEgressMatchesExpected, 0},
                 {ProbeValue::kJumboFramesPass, 0},
                 {ProbeValue::kJumboFrameBytes, 9000}};
  path.info = {{"egress_interface", "ens2f0"}, {"expected_interface", "ens1f0np0"}};
  in.records.push_back(path);
  in.records[6].verdicts[Verdict::kLatencyBound] = true;
  in.records[6].values[ProbeValue::kLatencyP99] = 0.0298;
  in.facts.transfers["node-b"] = 0.5e9;
  Ladder l = BuildLadder(in);
  auto has = [&](const std::string& words) {
    return std::any_of(l.shapes.begin(), l.shapes.end(),
                       [&](const std::string& s) { return s.find(words) != std::string::npos; });
  };
  EXPECT_TRUE(has("NIC in a slot narrower than the card (x4): its PCIe path carries 63.0 Gbit/s"));
  EXPECT_TRUE(
      has("socket buffers below the bandwidth-delay product (receiver window limited, "
          "path RTT 180 µs)"));
  EXPECT_TRUE(has("route leaves through ens2f0, expected ens1f0np0"));
  EXPECT_TRUE(has("jumbo frames fail on this path (MTU): a 9000-byte echo"));
  EXPECT_TRUE(has("storage write latency-bound (p99 29.8 ms)"));
  EXPECT_TRUE(has("real transfers reach 7.8% of the binding layer"));
  EXPECT_EQ(BindingId(l), "storage_read");
  EXPECT_EQ(l.layers[l.network_binding].id, "pcie");  // 7.88e9: below RDMA and TCP now.
  EXPECT_DOUBLE_EQ(*LayerOf(l, "transfers").bytes_per_second, 0.5e9);
  EXPECT_FALSE(LayerOf(l, "transfers").ceiling);
}

TEST(LadderModel, LargeFleetsKeepTheSlowestPaths) {
  std::vector<Ladder> ladders;
  for (double rate : {9e9, 3e9, 0.0, 5e9}) {
    LadderInput in = HealthyPath();
    in.records.clear();
    if (rate > 0) in.records.push_back(Rung("tcp_multi", "node-b", "send", rate));
    in.facts.pcie_current.reset();
    in.facts.line_rate.reset();
    in.peer = "node-b";
    ladders.push_back(BuildLadder(in));
  }
  EXPECT_EQ(KeepSlowestPaths(ladders, 4), "");
  EXPECT_EQ(ladders.size(), 4u);
  EXPECT_EQ(KeepSlowestPaths(ladders, 2),
            "Showing the 2 slowest of 4 paths (by the network's binding layer); the fleet "
            "dashboards show them all.");
  ASSERT_EQ(ladders.size(), 2u);
  EXPECT_DOUBLE_EQ(*ladders[0].layers[ladders[0].binding].bytes_per_second, 3e9);
  EXPECT_DOUBLE_EQ(*ladders[1].layers[ladders[1].binding].bytes_per_second, 5e9);
}

TEST(LadderText, TableMarksTheBindingLayerAndJsonNamesIt) {
  Ladder l = BuildLadder(HealthyPath());
  std::string table = RenderLadderTable(l);
  EXPECT_NE(table.find("▶ storage read"), std::string::npos) << table;
  EXPECT_NE(table.find("◀ binding"), std::string::npos);
  EXPECT_NE(table.find("raised: cpu_bound"), std::string::npos);
  EXPECT_NE(table.find("█"), std::string::npos);
  std::string json = LadderToJson(l);
  EXPECT_NE(json.find("\"binding\":\"storage_read\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"network_binding\":\"tcp_multi\""), std::string::npos);
}

TEST(LadderText, RatesInBitsLikeNicSpeeds) {
  EXPECT_EQ(FormatRate(12.5e9), "100 Gbit/s");
  EXPECT_EQ(FormatRate(11.5125e9), "92.1 Gbit/s");
  EXPECT_EQ(FormatRate(106.25e6), "850 Mbit/s");
  EXPECT_EQ(FormatPercent(0.921), "92%");
  EXPECT_EQ(FormatPercent(0.048), "4.8%");
}

}  // namespace
}  // namespace fabric::ladder
