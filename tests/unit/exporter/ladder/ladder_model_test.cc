#include "exporter/ladder/ladder_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "exporter/ladder/ladder_facts.h"
#include "exporter/ladder/ladder_text.h"
#include "exporter/ladder/node_ladders.h"
#include "exporter/ladder/rule_thresholds.h"
#include "exporter/metrics/metric_sink.h"

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

// Transfers to node-b that move now at `rates` and did all through the window.
void Moving(LadderInput& in, const std::map<std::string, double>& rates) {
  in.facts.transfers["node-b"] = rates;
  in.facts.windowed.transfers["node-b"] = rates;
}

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

// The 1-stream rung is one core's ceiling by definition: FabricProbeHarnessLimited leaves it out,
// so its cpu_bound verdict is shown on its layer and names no shape.
TEST(LadderModel, SingleStreamCpuBoundIsAVerdictNotAShape) {
  Ladder l = BuildLadder(HealthyPath());
  EXPECT_EQ(LayerOf(l, "tcp_single").verdicts, std::vector<std::string>{"cpu_bound"});
  EXPECT_TRUE(LayerOf(l, "tcp_multi").self_checked);
  EXPECT_TRUE(LayerOf(l, "tcp_multi").verdicts.empty());
  EXPECT_EQ(l.shapes, std::vector<Shape>{});
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
  in.facts.pcie_capable_width = 16;
  in.facts.pcie_current = 7.88e9;
  in.facts.pcie_capable = 7.88e9;
  in.facts.socket_buffer_max = {{"net.core.rmem_max", 212992}, {"net.ipv4.tcp_rmem", 6291456}};
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
  in.records[6].values[ProbeValue::kLatencyP99] = 0.0298;
  ProbeRecord depth1 = Rung("storage_write_depth1", "/data", "", 0.13e9);
  depth1.values[ProbeValue::kLatencyP50] = 0.012;
  in.records.push_back(depth1);
  Moving(in, {{"send", 0.5e9}});
  Ladder l = BuildLadder(in);
  auto has = [&](const std::string& words) {
    return std::any_of(l.shapes.begin(), l.shapes.end(),
                       [&](const Shape& s) { return s.words.find(words) != std::string::npos; });
  };
  EXPECT_TRUE(
      has("NIC in a slot narrower than the card (x4, card x16): even fully trained its PCIe "
          "path carries 63.0 Gbit/s, below the 100 Gbit/s line rate"));
  EXPECT_TRUE(has("PCIe link of the NIC (63.0 Gbit/s) is below its line rate (100 Gbit/s)"));
  EXPECT_TRUE(
      has("socket buffers below the bandwidth-delay product (100 Gbit/s x path RTT 180 µs = "
          "2.1 MiB; net.core.rmem_max is 208 KiB)"));
  EXPECT_TRUE(has("route leaves through ens2f0, expected ens1f0np0"));
  EXPECT_TRUE(has("jumbo frames fail on this path (MTU): a 9000-byte echo"));
  EXPECT_TRUE(
      has("storage write latency-bound (p99 29.8 ms): one I/O at a time moves 1.0 Gbit/s at "
          "12.0 ms per I/O, the loaded run 104 Gbit/s"));
  EXPECT_TRUE(
      has("real transfers send 4.0 Gbit/s, 4.3% of the 92.0 Gbit/s the N-stream TCP probe proved "
          "on this path: the applications, not the fabric, are the limit"));
  EXPECT_EQ(BindingId(l), "storage_read");
  EXPECT_EQ(l.layers[l.network_binding].id, "pcie");  // 7.88e9: below RDMA and TCP now.
  EXPECT_DOUBLE_EQ(*LayerOf(l, "transfers").bytes_per_second, 0.5e9);
  EXPECT_FALSE(LayerOf(l, "transfers").ceiling);
}

std::vector<std::string> ShapeIds(const Ladder& l) {
  std::vector<std::string> ids;
  for (const auto& s : l.shapes) ids.push_back(s.id);
  return ids;
}

using Ids = std::vector<std::string>;

// FabricTransmitAsymmetry judges the send side by results that shared no path (cpu_bound kept)
// and the receive side by clean ones: two cpu_bound results are no asymmetry, a receive slower
// than the send is none either (the alert is one-sided), and 20% apart is within txRxRatio.
TEST(LadderShapes, AsymmetryOnTheEvidenceOfItsAlert) {
  auto asymmetry = [](double send, double receive, std::map<Verdict, bool> send_verdicts,
                      std::map<Verdict, bool> receive_verdicts) {
    LadderInput in = HealthyPath();
    in.records = {Rung("tcp_multi", "node-b", "send", send, std::move(send_verdicts)),
                  Rung("tcp_multi", "node-b", "receive", receive, std::move(receive_verdicts))};
    auto ids = ShapeIds(BuildLadder(in));
    return std::find(ids.begin(), ids.end(), "tx_rx_asymmetry") != ids.end();
  };
  const std::map<Verdict, bool> cpu = {{Verdict::kCpuBound, true}};
  const std::map<Verdict, bool> contended = {{Verdict::kContended, true}};
  EXPECT_TRUE(asymmetry(5e9, 11e9, {}, {}));
  EXPECT_TRUE(asymmetry(5e9, 11e9, cpu, {}));    // A CPU-starved transmit side is the shape.
  EXPECT_FALSE(asymmetry(5e9, 11e9, cpu, cpu));  // The receive is a harness ceiling.
  EXPECT_FALSE(asymmetry(5e9, 11e9, contended, {}));
  EXPECT_FALSE(asymmetry(11e9, 5e9, {}, {}));    // Receives slower: not shape 10.
  EXPECT_FALSE(asymmetry(9.5e9, 11e9, {}, {}));  // 86%: within txRxRatio (0.85).
}

// Per node, as the alert: the best send over every peer against the best clean receive, and a
// path whose route leaves through another NIC does not count as a send.
TEST(LadderShapes, AsymmetryIsPerNode) {
  LadderInput in = HealthyPath();
  in.records = {
      Rung("tcp_multi", "node-b", "send", 11e9), Rung("tcp_multi", "node-b", "receive", 11e9),
      Rung("tcp_multi", "node-c", "send", 4e9), Rung("tcp_multi", "node-c", "receive", 11e9)};
  in.peer = "node-c";
  EXPECT_EQ(ShapeIds(BuildLadder(in)), Ids{});  // node-b's send is as fast as any receive.
  in.records[0].values[ProbeValue::kThroughput] = 4e9;
  ProbeRecord path;
  path.key = {probe::Rung::kPath, "node-b", probe::Direction::kNone};
  path.timestamp_seconds = kNow - 10;
  path.success = true;
  path.values = {{ProbeValue::kEgressMatchesExpected, 1}, {ProbeValue::kJumboFramesPass, 1}};
  in.records.push_back(path);
  EXPECT_EQ(ShapeIds(BuildLadder(in)), Ids{"tx_rx_asymmetry"});
  in.records.back().values[ProbeValue::kEgressMatchesExpected] = 0;
  in.records[2].values[ProbeValue::kThroughput] = 11e9;  // Only node-b's (wrong route) is slow.
  in.peer = "node-b";
  EXPECT_EQ(ShapeIds(BuildLadder(in)), Ids{"route_unexpected_interface"});
}

// FabricProbeHarnessLimited: cpu_bound or contended results of N-stream TCP, RDMA and storage,
// unless stream-limited or CPU-bound at the far end only; one shape per rung.
TEST(LadderShapes, HarnessLimitedPerRung) {
  LadderInput in = HealthyPath();
  // node-c's send as fast as node-b's: leaving node-b's contended send out of the node's best
  // send below is then no asymmetry.
  in.records[4].values[ProbeValue::kThroughput] = 11.5e9;
  in.records[1].verdicts[Verdict::kCpuBound] = true;
  in.records[1].values[ProbeValue::kLocalCpu] = 0.97;
  in.records[1].values[ProbeValue::kRemoteCpu] = 0.4;
  in.records[0].verdicts[Verdict::kCpuBound] = true;  // RDMA: no shape before.
  in.records[5].verdicts[Verdict::kCpuBound] = true;  // storage read.
  EXPECT_EQ(ShapeIds(BuildLadder(in)), (Ids{"harness_limited_rdma", "harness_limited_tcp_multi",
                                            "harness_limited_storage_read"}));
  // The far end's harness saturated, not ours.
  in.records[1].values[ProbeValue::kLocalCpu] = 0.5;
  in.records[1].values[ProbeValue::kRemoteCpu] = 0.95;
  in.records[0].verdicts[Verdict::kCpuBound] = false;
  in.records[5].verdicts[Verdict::kCpuBound] = false;
  EXPECT_EQ(ShapeIds(BuildLadder(in)), Ids{});
  // ... unless the path was shared too.
  in.records[1].verdicts[Verdict::kContended] = true;
  EXPECT_EQ(ShapeIds(BuildLadder(in)), Ids{"harness_limited_tcp_multi"});
  // A stream-limited result is FabricProbeStreamLimited's.
  in.records[1].verdicts[Verdict::kStreamLimited] = true;
  EXPECT_EQ(ShapeIds(BuildLadder(in)), Ids{});
}

// FabricProbeStreamLimited needs the stream sweep: more streams moved more.
TEST(LadderShapes, StreamLimitedNeedsTheSweep) {
  LadderInput in = HealthyPath();
  in.records[1].verdicts[Verdict::kStreamLimited] = true;
  in.records[1].values[ProbeValue::kStreams] = 8;
  EXPECT_EQ(ShapeIds(BuildLadder(in)), Ids{});  // The verdict alone: shown on the layer.
  ProbeRecord sweep = Rung("tcp_multi_sweep", "node-b", "send", 11.5e9 * 1.05);
  sweep.values[ProbeValue::kStreams] = 16;
  in.records.push_back(sweep);
  EXPECT_EQ(ShapeIds(BuildLadder(in)), Ids{});  // 5% more: within sweepGain (1.1).
  in.records.back().values[ProbeValue::kThroughput] = 11.5e9 * 1.3;
  EXPECT_EQ(ShapeIds(BuildLadder(in)), Ids{"stream_limited"});
}

// RDMA congestion has no alert in the bundle: its verdict is shown on the RDMA layer only.
TEST(LadderShapes, RdmaCongestedIsAVerdict) {
  LadderInput in = HealthyPath();
  in.records[0].verdicts[Verdict::kCongested] = true;
  Ladder l = BuildLadder(in);
  EXPECT_EQ(ShapeIds(l), Ids{});
  EXPECT_EQ(LayerOf(l, "rdma").verdicts, std::vector<std::string>{"congested"});
}

// Shape 14 as its three alerts judge it: the slot only where even fully trained it stays under
// pcieLineRatio of the line rate; a downtrained link and a path below the line rate on their own.
TEST(LadderShapes, PcieShapesEachOnTheirOwnEvidence) {
  LadderInput in = HealthyPath();
  in.facts.pcie_slot_limited = true;  // A x8 gen4 slot for a 100 GbE NIC: still enough.
  in.facts.pcie_capable = 15.75e9;
  in.facts.pcie_current = 15.75e9;
  EXPECT_EQ(ShapeIds(BuildLadder(in)), Ids{});
  in.facts.pcie_downtrained_hops = 1;
  in.facts.pcie_current = 7.88e9;
  EXPECT_EQ(ShapeIds(BuildLadder(in)), (Ids{"pcie_downtrained", "pcie_below_line_rate"}));
  in.facts.pcie_downtrained_hops = 0;
  in.facts.pcie_capable = 7.88e9;
  EXPECT_EQ(ShapeIds(BuildLadder(in)), (Ids{"pcie_slot_limited", "pcie_below_line_rate"}));
  in.facts.pcie_current = in.facts.pcie_capable = 0.96 * 12.5e9;  // Within pcieLineRatio.
  EXPECT_EQ(ShapeIds(BuildLadder(in)), Ids{});
}

// FabricSocketBufferBelowBdp: line rate x the node's longest TCP min RTT against every
// socket-buffer maximum, whatever the window verdicts say.
TEST(LadderShapes, SocketBuffersAgainstTheBdp) {
  LadderInput in = HealthyPath();
  in.records[1].values[ProbeValue::kMinRtt] = 38e-6;  // BDP 475 kB.
  in.facts.socket_buffer_max = {{"net.core.rmem_max", 4194304}, {"net.core.wmem_max", 4194304}};
  in.records[1].verdicts[Verdict::kReceiverWindowLimited] = true;
  EXPECT_EQ(ShapeIds(BuildLadder(in)), Ids{});  // The verdict: the far end's receive buffers.
  in.facts.socket_buffer_max["net.core.wmem_max"] = 212992;
  Ladder l = BuildLadder(in);
  ASSERT_EQ(ShapeIds(l), Ids{"socket_buffer_below_bdp"});
  EXPECT_NE(l.shapes[0].words.find("net.core.wmem_max is 208 KiB)"), std::string::npos)
      << l.shapes[0].words;
  in.facts.line_rate.reset();  // No line rate, no product.
  EXPECT_EQ(ShapeIds(BuildLadder(in)), Ids{});
}

// FabricStorageLatencyBound: the depth-1 run slow per I/O (p50 >= 10 ms) and the loaded run at
// least 3 times faster; the loaded run's latency_bound verdict alone is shown on its layer.
TEST(LadderShapes, StorageLatencyBoundNeedsTheDepth1Run) {
  LadderInput in = HealthyPath();
  in.records[6].verdicts[Verdict::kLatencyBound] = true;
  EXPECT_EQ(ShapeIds(BuildLadder(in)), Ids{});
  ProbeRecord depth1 = Rung("storage_write_depth1", "/data", "", 1e9);
  depth1.values[ProbeValue::kLatencyP50] = 0.02;
  in.records.push_back(depth1);
  EXPECT_EQ(ShapeIds(BuildLadder(in)), Ids{"storage_write_latency_bound"});
  in.records.back().values[ProbeValue::kLatencyP50] = 0.009;
  EXPECT_EQ(ShapeIds(BuildLadder(in)), Ids{});
  in.records.back().values[ProbeValue::kLatencyP50] = 0.02;
  in.records.back().values[ProbeValue::kThroughput] = 5e9;  // 13e9 is not 3 x 5e9.
  EXPECT_EQ(ShapeIds(BuildLadder(in)), Ids{});
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
  l.shapes = {{"jumbo_frames_failing", "jumbo frames fail"}};
  json = LadderToJson(l);
  EXPECT_NE(
      json.find("\"shapes\":[\"jumbo frames fail\"],\"shape_ids\":[\"jumbo_frames_failing\"]"),
      std::string::npos)
      << json;
}

TEST(LadderText, RatesInBitsLikeNicSpeeds) {
  EXPECT_EQ(FormatRate(12.5e9), "100 Gbit/s");
  EXPECT_EQ(FormatRate(11.5125e9), "92.1 Gbit/s");
  EXPECT_EQ(FormatRate(106.25e6), "850 Mbit/s");
  EXPECT_EQ(FormatPercent(0.921), "92%");
  EXPECT_EQ(FormatPercent(0.048), "4.8%");
}

// FabricTransfersFarBelowLadder's evidence: the flows' sum in one direction, above the floor
// (a fraction of the line rate), below the fraction of the uncontended N-stream result of the
// same path and direction; the thresholds are the rule bundle's own.
TEST(LadderModel, TransfersBelowTheLadderOnTheRulesEvidence) {
  auto named = [](const LadderInput& in) {
    Ladder l = BuildLadder(in);
    return std::any_of(l.shapes.begin(), l.shapes.end(),
                       [](const Shape& s) { return s.id == "transfers_below_ladder"; });
  };
  LadderInput in = HealthyPath();
  Moving(in, {{"receive", 1.0e9}});  // 9% of the 11.0e9 received.
  EXPECT_TRUE(named(in));
  Moving(in, {{"receive", 3.0e9}});  // 27%: above the fraction.
  EXPECT_FALSE(named(in));
  // Under the floor of the 12.5e9 line (0.9% with the shipped 1%), above it (1.1%).
  const double floor = rule_config::kTransferMinPathRatio * 12.5e9;
  Moving(in, {{"send", 0.9 * floor}});
  EXPECT_FALSE(named(in));
  Moving(in, {{"send", 1.1 * floor}});
  EXPECT_TRUE(named(in));
  // No line rate (veth, many virtio NICs): the floor is a fraction of the best proven result.
  in.facts.line_rate.reset();
  EXPECT_TRUE(named(in));  // 1.1 x 1% of 12.5e9 is above 1% of 11.5e9, whatever the ratio.
  Moving(in, {{"send", 0.9 * rule_config::kTransferMinPathRatio * 11.5e9}});
  EXPECT_FALSE(named(in));
  in.facts.line_rate = 12.5e9;
  Moving(in, {{"send", 1.0e9}});
  EXPECT_TRUE(named(in));
  in.records[1].verdicts[Verdict::kContended] = true;  // The send result shared its path.
  EXPECT_FALSE(named(in));
  // The store kept the last uncontended result (item 41.4): it is the proven ceiling, while
  // younger than the rules' age limit.
  in.records[1].uncontended = KeptResult{kNow - 3600, 11.5e9};
  EXPECT_TRUE(named(in));
  in.records[1].uncontended->timestamp_seconds = kNow - rule_config::kProbeEvidenceMaxAgeSeconds;
  EXPECT_FALSE(named(in));
  in.records[1].uncontended.reset();
  // The layer shows the busier direction and names both.
  Moving(in, {{"send", 1.0e9}, {"receive", 2.0e9}});
  Ladder l = BuildLadder(in);
  EXPECT_DOUBLE_EQ(*LayerOf(l, "transfers").bytes_per_second, 2.0e9);
  EXPECT_EQ(LayerOf(l, "transfers").detail,
            "receive 16.0 Gbit/s, send 8.0 Gbit/s (bulk flows now)");
  // Each direction names the applications that move it, the busiest first; the CLI says when
  // it saw them.
  in.facts.applications["node-b"]["send"] = {{"rsync", 0.2e9}, {"ssh", 0.8e9}};
  in.transfers_seen = "bulk flows while the probes ran";
  EXPECT_EQ(LayerOf(BuildLadder(in), "transfers").detail,
            "receive 16.0 Gbit/s, send 8.0 Gbit/s by ssh, rsync (bulk flows while the probes ran)");
}

// The NFS mounts on the peer: a layer only where there are some, naming the transport and a
// negotiated rsize/wsize below what the mount asked for (FabricNfsTransferSizeCapped).
TEST(LadderModel, NfsMountOnThePeerNamesItsTransportAndTheSizeCap) {
  LadderInput in = HealthyPath();
  auto nfs = [](const Ladder& l) {
    auto it = std::find_if(l.layers.begin(), l.layers.end(),
                           [](const Layer& layer) { return layer.id == "nfs"; });
    return it == l.layers.end() ? std::optional<Layer>() : std::optional<Layer>(*it);
  };
  EXPECT_FALSE(nfs(BuildLadder(in)).has_value());
  in.facts.nfs_mounts["node-c"] = {{"/mnt/other", "tcp", 1048576.0, 1048576.0, {}, {}}};
  EXPECT_FALSE(nfs(BuildLadder(in)).has_value());  // Another peer's mount.
  in.facts.nfs_mounts["node-b"] = {
      {"/mnt/backup", "rdma", 1048576.0, 1048576.0, 4194304.0, 4194304.0}};
  auto layer = nfs(BuildLadder(in));
  ASSERT_TRUE(layer.has_value());
  EXPECT_FALSE(layer->ceiling);
  EXPECT_FALSE(layer->bytes_per_second.has_value());
  EXPECT_EQ(layer->status,
            "/mnt/backup over rdma, rsize 1.0 MiB, wsize 1.0 MiB (capped: rsize 1.0 MiB below the "
            "4.0 MiB asked, wsize 1.0 MiB below the 4.0 MiB asked)");
  // What it asked for: no cap named. The binding layer is the same as without the mount.
  in.facts.nfs_mounts["node-b"][0].requested_rsize = 1048576.0;
  in.facts.nfs_mounts["node-b"][0].requested_wsize = {};
  layer = nfs(BuildLadder(in));
  ASSERT_TRUE(layer.has_value());
  EXPECT_EQ(layer->status, "/mnt/backup over rdma, rsize 1.0 MiB, wsize 1.0 MiB");
  LadderInput without = HealthyPath();
  EXPECT_EQ(BuildLadder(in).binding_text, BuildLadder(without).binding_text);
}

// The collective rung: the best inter-node bus bandwidth at the judged sizes, against the RDMA
// rung of the path; usage, so it never binds.
TEST(LadderModel, CollectiveRungAgainstTheRdmaRung) {
  LadderInput in = HealthyPath();
  auto collective = [](const Ladder& l) {
    auto it = std::find_if(l.layers.begin(), l.layers.end(),
                           [](const Layer& layer) { return layer.id == "collective"; });
    return it == l.layers.end() ? std::optional<Layer>() : std::optional<Layer>(*it);
  };
  EXPECT_FALSE(collective(BuildLadder(in)).has_value());
  in.facts.collectives = {{"AllGather", "4GiB+", "intra_node", "nccl_inspector", 300e9}};
  auto layer = collective(BuildLadder(in));
  ASSERT_TRUE(layer.has_value());
  EXPECT_FALSE(layer->bytes_per_second.has_value());
  EXPECT_EQ(layer->status, "no collective across nodes at 256 MiB or more (1 other measurement)");
  in.facts.collectives.push_back({"AllReduce", "4GiB+", "inter_node", "nccl_tests", 6e9});
  in.facts.collectives.push_back({"AllReduce", "16MiB-256MiB", "inter_node", "nccl_tests", 9e9});
  layer = collective(BuildLadder(in));
  ASSERT_TRUE(layer.has_value());
  EXPECT_FALSE(layer->ceiling);
  EXPECT_EQ(layer->bytes_per_second.value(), 6e9);
  EXPECT_EQ(layer->detail,
            "AllReduce bus bandwidth across nodes, 4GiB+ messages (nccl_tests), 50% of the RDMA "
            "rung");
  LadderInput without = HealthyPath();
  EXPECT_EQ(BuildLadder(in).binding_text, BuildLadder(without).binding_text);
}

// The page names who moves the data, in the words of the shape the rules name each by.
TEST(LadderModel, TransfersBelowTheLadderNameTheApplications) {
  LadderInput in = HealthyPath();
  Moving(in, {{"send", 1.0e9}});
  in.facts.windowed.applications["node-b"]["send"] = {
      {"rsync", 0.3e9}, {"ssh", 0.6e9}, {"socat", 0.1e9}};
  in.facts.windowed.applications["node-b"]["receive"] = {{"netcat", 0.2e9}};
  Ladder l = BuildLadder(in);
  auto shape = std::find_if(l.shapes.begin(), l.shapes.end(),
                            [](const Shape& s) { return s.id == "transfers_below_ladder"; });
  ASSERT_NE(shape, l.shapes.end());
  EXPECT_NE(shape->words.find(
                "are the limit: ssh (SSH encryption on a trusted path: ssh, scp, sftp, rsync "
                "over ssh) 4.8 Gbit/s; rsync (its per-file protocol) 2.4 Gbit/s; socat (a "
                "userspace copy pipeline: dd | socat, tar | nc) 800 Mbit/s"),
            std::string::npos)
      << shape->words;
  EXPECT_EQ(shape->words.find("netcat"), std::string::npos) << shape->words;  // Other direction.
  EXPECT_EQ(ApplicationWords("mover"), "mover");
  EXPECT_EQ(ApplicationsWords(in.facts.windowed.applications, "node-c", "send"), "");
}

// The page judges real transfers over the rules' window while they move: a mover between two
// runs (one scrape at 6% of the rung) is not slow, nor is a transfer that has ended, while a
// per-file loop whose window average is far below the rung is, whatever one scrape shows.
TEST(LadderModel, TransfersAreJudgedOverTheWindowWhileTheyMove) {
  auto named = [](const LadderInput& in) {
    Ladder l = BuildLadder(in);
    return std::any_of(l.shapes.begin(), l.shapes.end(),
                       [](const Shape& s) { return s.id == "transfers_below_ladder"; });
  };
  LadderInput in = HealthyPath();
  in.facts.transfers["node-b"] = {{"send", 0.7e9}};            // The scrape that caught a gap.
  in.facts.windowed.transfers["node-b"] = {{"send", 10.0e9}};  // 87% over the window.
  EXPECT_FALSE(named(in));
  in.facts.transfers.clear();  // Ended: slow over the window, but nothing moves now.
  in.facts.windowed.transfers["node-b"] = {{"send", 1.0e9}};
  EXPECT_FALSE(named(in));
  in.facts.transfers["node-b"] = {{"send", 6.0e9}};  // A loop's fast second; 9% over the window.
  in.facts.windowed.window_seconds = 300;
  Ladder l = BuildLadder(in);
  auto shape = std::find_if(l.shapes.begin(), l.shapes.end(),
                            [](const Shape& s) { return s.id == "transfers_below_ladder"; });
  ASSERT_NE(shape, l.shapes.end());
  EXPECT_NE(shape->words.find("real transfers send 8.0 Gbit/s over the last 5 min, 8.7% of the"),
            std::string::npos)
      << shape->words;
}

// The window's rates from the goodput the exporter kept from recent scrapes: weighted by the
// time each scrape covers, from the scrape an application first moved in, a scrape without
// its flow counting as nothing moved; the probe's own flows and unknown peers left out.
TEST(LadderFacts, WindowedTransfersFromTheKeptGoodput) {
  auto scrape = [](std::vector<std::tuple<std::string, std::string, std::string, double>> flows) {
    MetricSink sink;
    for (const auto& [peer, application, limiter, goodput] : flows) {
      sink.Gauge("fabric_flows_goodput_bytes_per_second", "h",
                 {{"peer", peer}, {"application", application}, {"limiter", limiter}}, goodput);
    }
    return sink.TakeSorted();
  };
  const std::map<std::string, std::string> peers = {{"198.18.0.2", "node-b"}};
  // ssh sends from t=0 (1 GB/s, then a gap, then 2 GB/s); iperf3 starts at t=20; rsync is
  // received at t=0 only, then gone; the probe and an unknown peer move too.
  std::vector<std::vector<prometheus::MetricFamily>> families = {
      scrape({{"198.18.0.2", "ssh", "network", 1e9},
              {"198.18.0.2", "rsync", "remote_sender", 3e9},
              {"198.18.0.2", "fabric_probe", "network", 9e9},
              {"198.18.0.9", "ssh", "network", 9e9}}),
      scrape({}),
      scrape({{"198.18.0.2", "ssh", "network", 2e9}, {"198.18.0.2", "iperf3", "network", 4e9}}),
  };
  CounterHistory history{300, {{0, &families[0]}, {10, &families[1]}, {20, &families[2]}}};
  PassiveFacts facts = FactsFromFamilies(families.back(), "", peers, &history);
  EXPECT_EQ(facts.windowed.window_seconds, 300);
  // ssh: (1e9 x 10 s + 0 x 10 s + 2e9 x 10 s) / 30 s; iperf3 over its own 10 s.
  EXPECT_DOUBLE_EQ(facts.windowed.applications["node-b"]["send"]["ssh"], 1e9);
  EXPECT_DOUBLE_EQ(facts.windowed.applications["node-b"]["send"]["iperf3"], 4e9);
  EXPECT_DOUBLE_EQ(facts.windowed.transfers["node-b"]["send"], 5e9);
  EXPECT_DOUBLE_EQ(facts.windowed.transfers["node-b"]["receive"], 1e9);  // 3e9 x 10 s / 30 s.
  EXPECT_EQ(facts.windowed.applications["node-b"]["send"].count("fabric_probe"), 0u);
  EXPECT_EQ(facts.windowed.transfers.size(), 1u);
  // What the latest scrape shows now.
  EXPECT_DOUBLE_EQ(facts.transfers["node-b"]["send"], 6e9);
  EXPECT_EQ(facts.transfers["node-b"].count("receive"), 0u);
  // A scrape older than the window is left out: ssh's window starts at t=10.
  history.window_seconds = 10;
  facts = FactsFromFamilies(families.back(), "", peers, &history);
  EXPECT_DOUBLE_EQ(facts.windowed.applications["node-b"]["send"]["ssh"], 2e9);
  EXPECT_EQ(facts.windowed.transfers["node-b"].count("receive"), 0u);
  // One look (`fabric_probe ladder`): what it sees now.
  facts = FactsFromFamilies(families.back(), "", peers);
  EXPECT_EQ(facts.windowed.transfers, facts.transfers);
}

// A rung more than the rules' regressionFraction below the best clean result the store kept
// over their longBaselineWindow says what it used to do, and when (issue 42.7: 194 then 149
// Gbit/s four weeks apart, which the 7-day baseline absorbed).
TEST(LadderModel, ARungFarBelowItsBestSaysWhatItUsedToDo) {
  LadderInput in = HealthyPath();
  in.records[1].values[ProbeValue::kThroughput] = 1.86e10;
  in.records[1].best = KeptResult{1762214400, 2.43e10};  // 2025-11-04.
  EXPECT_NE(LayerOf(BuildLadder(in), "tcp_multi")
                .detail.find("send 149 Gbit/s (it did 194 Gbit/s on 2025-11-04, its best in "
                             "30 days)"),
            std::string::npos)
      << LayerOf(BuildLadder(in), "tcp_multi").detail;
  // A CPU-bound or contended result is the harness's, not the path's: not set against it.
  in.records[1].verdicts[Verdict::kCpuBound] = true;
  EXPECT_EQ(LayerOf(BuildLadder(in), "tcp_multi").detail.find("it did"), std::string::npos);
  in.records[1].verdicts[Verdict::kCpuBound] = false;
  in.records[1].verdicts[Verdict::kContended] = true;
  EXPECT_EQ(LayerOf(BuildLadder(in), "tcp_multi").detail.find("it did"), std::string::npos);
  in.records[1].verdicts[Verdict::kContended] = false;
  // Within the fraction: a fact not worth a word.
  in.records[1].values[ProbeValue::kThroughput] = 2.1e10;
  EXPECT_EQ(LayerOf(BuildLadder(in), "tcp_multi").detail.find("it did"), std::string::npos);
}

// A run that shared its path (contended) measured what a transfer left of it: the bar and the
// binding layer stay at the uncontended result the store kept (the one the rules divide by),
// the words give both and its age (issue 41.4: the page named N-stream TCP at 1.2 Gbit/s the
// binding layer while a mover ran 3.0 Gbit/s over the path).
TEST(LadderModel, AContendedRunLeavesTheUncontendedResultOnTheBar) {
  LadderInput in = HealthyPath();
  in.records[1].values[ProbeValue::kThroughput] = 1.5e8;
  in.records[1].verdicts[Verdict::kContended] = true;
  in.records[1].uncontended = KeptResult{kNow - 600, 11.5e9};
  Ladder l = BuildLadder(in);
  const Layer& multi = LayerOf(l, "tcp_multi");
  EXPECT_DOUBLE_EQ(*multi.bytes_per_second, 11.0e9);  // The receive direction, uncontended.
  EXPECT_NE(multi.detail.find("send 92.0 Gbit/s without other traffic 10 min ago (the last "
                              "run, 1.2 Gbit/s, shared the path)"),
            std::string::npos)
      << multi.detail;
  EXPECT_NE(std::find(multi.verdicts.begin(), multi.verdicts.end(), "contended"),
            multi.verdicts.end());
  EXPECT_EQ(BindingId(l), "storage_read");  // As on the healthy path.
  // Past the rules' age limit the kept result proves nothing: the contended run is what is left.
  in.records[1].uncontended->timestamp_seconds = kNow - rule_config::kProbeEvidenceMaxAgeSeconds;
  l = BuildLadder(in);
  EXPECT_DOUBLE_EQ(*LayerOf(l, "tcp_multi").bytes_per_second, 1.5e8);
  EXPECT_EQ(LayerOf(l, "tcp_multi").detail.find("without other traffic"), std::string::npos);
  EXPECT_EQ(BindingId(l), "tcp_multi");
  // An uncontended run is its own number.
  in.records[1].verdicts[Verdict::kContended] = false;
  in.records[1].uncontended = KeptResult{in.records[1].timestamp_seconds, 1.5e8};
  EXPECT_EQ(LayerOf(BuildLadder(in), "tcp_multi").detail.find("without other traffic"),
            std::string::npos);
}

// Who uses RDMA on the path: the processes whose queue pairs' rdma_cm ids name the peer, and
// the QPs connected without rdma_cm, which the kernel places on no path. A fact, never binding.
TEST(LadderModel, RdmaQueuePairsNameTheProcessesOnThePath) {
  LadderInput in = HealthyPath();
  auto users = [](const Ladder& l) {
    auto it = std::find_if(l.layers.begin(), l.layers.end(),
                           [](const Layer& layer) { return layer.id == "rdma_users"; });
    return it == l.layers.end() ? std::optional<Layer>() : std::optional<Layer>(*it);
  };
  EXPECT_FALSE(users(BuildLadder(in)).has_value());
  in.facts.rdma_queue_pairs["node-c"] = {{"[nvme_rdma]", 1}};
  EXPECT_FALSE(users(BuildLadder(in)).has_value());  // Another peer's.
  in.facts.rdma_queue_pairs["node-b"] = {{"[rpcrdma]", 2}, {"ib_write_bw", 1}};
  in.facts.rdma_queue_pairs["unknown"] = {{"python3", 4}};
  auto layer = users(BuildLadder(in));
  ASSERT_TRUE(layer.has_value());
  EXPECT_FALSE(layer->ceiling);
  EXPECT_FALSE(layer->bytes_per_second.has_value());
  EXPECT_EQ(layer->status,
            "to this peer: [rpcrdma] 2, ib_write_bw 1; peer unknown (connected without rdma_cm): "
            "python3 4");
  LadderInput without = HealthyPath();
  EXPECT_EQ(BuildLadder(in).binding_text, BuildLadder(without).binding_text);
}

}  // namespace
}  // namespace fabric::ladder
