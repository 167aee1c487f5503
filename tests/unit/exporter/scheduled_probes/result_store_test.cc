#include "exporter/scheduled_probes/result_store.h"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "exporter/scheduled_probes/probe_results_collector.h"
#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

using probe::Direction;
using probe::ProbeValue;
using probe::Rung;
using probe::Verdict;

ProbeKey TcpKey(std::string peer) { return {Rung::kTcpMulti, std::move(peer), Direction::kSend}; }

ProbeRecord TcpResult(std::string peer, double throughput) {
  ProbeRecord r;
  r.key = TcpKey(std::move(peer));
  r.timestamp_seconds = 1764500000;
  r.success = true;
  r.duration_seconds = 12.5;
  r.values[ProbeValue::kThroughput] = throughput;
  r.values[ProbeValue::kStreams] = 8;
  r.verdicts[Verdict::kCpuBound] = false;
  r.verdicts[Verdict::kStreamLimited] = true;
  return r;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(ResultStoreTest, SaveAndLoadRoundTripOnlyConfiguredProbes) {
  testing::TestDir dir;
  std::string path = (dir.path() / "state.yml").string();
  ResultStore store;
  store.Expect(TcpKey("node-b"));
  store.Record(TcpResult("node-b", 1.4e10));
  store.Record(TcpResult("node-gone", 2e9));
  ASSERT_TRUE(store.Save(path).ok());
  // No temporary file is left beside the state file.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);

  ResultStore restarted;
  restarted.Expect(TcpKey("node-b"));
  restarted.Expect(TcpKey("node-c"));
  ASSERT_TRUE(restarted.Load(path).ok());
  auto records = restarted.Snapshot();
  ASSERT_EQ(records.size(), 2u);  // node-gone is no longer configured.
  EXPECT_EQ(records[0].key.target, "node-b");
  EXPECT_EQ(records[0].values.at(ProbeValue::kThroughput), 1.4e10);
  EXPECT_TRUE(records[0].verdicts.at(Verdict::kStreamLimited));
  EXPECT_EQ(records[1].key.target, "node-c");
  EXPECT_EQ(records[1].timestamp_seconds, 0);
}

TEST(ResultStoreTest, TcpCalibrationsSurviveARestartForConfiguredRungsOnly) {
  testing::TestDir dir;
  std::string path = (dir.path() / "state.yml").string();
  ResultStore store;
  store.Expect(TcpKey("node-b"));
  TcpCalibration c;
  c.timestamp_seconds = 1764500000;
  c.chosen = {probe::SendMode::kCopy, 1 << 20};
  for (const TcpCandidate& candidate : TcpCalibrationCandidates()) {
    c.measured.push_back({candidate, candidate == c.chosen ? 5.9e9 : 2e9});
  }
  store.SetCalibration(TcpKey("node-b"), c);
  store.SetCalibration(TcpKey("node-gone"), c);
  ASSERT_TRUE(store.Save(path).ok());
  EXPECT_NE(ReadAll(path).find("tcp_calibration:"), std::string::npos);

  ResultStore restarted;
  restarted.Expect(TcpKey("node-b"));
  ASSERT_TRUE(restarted.Load(path).ok());
  auto loaded = restarted.Calibration(TcpKey("node-b"));
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->timestamp_seconds, 1764500000);
  EXPECT_EQ(loaded->chosen, c.chosen);
  ASSERT_EQ(loaded->measured.size(), c.measured.size());
  for (size_t i = 0; i < c.measured.size(); ++i) {
    EXPECT_EQ(loaded->measured[i].candidate, c.measured[i].candidate);
    EXPECT_EQ(loaded->measured[i].bytes_per_second, c.measured[i].bytes_per_second);
  }
  EXPECT_FALSE(restarted.Calibration(TcpKey("node-gone")));  // No longer configured.
  EXPECT_EQ(restarted.Calibrations().size(), 1u);
}

TEST(ResultStoreTest, ACalibrationChoosingAnUnknownCandidateIsDropped) {
  ResultStore store;
  store.Expect(TcpKey("node-b"));
  ASSERT_TRUE(store
                  .LoadText("version: 1\nresults: []\ntcp_calibration:\n"
                            "  - {probe: tcp_multi, target: node-b, direction: send, "
                            "timestamp: 1764500000, mode: copy, block: 65536, measured: []}\n",
                            "state.yml")
                  .ok());
  EXPECT_FALSE(store.Calibration(TcpKey("node-b")));  // Calibrated again at the next run.
}

TEST(ResultStoreTest, ReplayLoadsEveryRecordedResultWithItsInfo) {
  testing::TestDir dir;
  std::string path = (dir.path() / "state.yml").string();
  ResultStore recorded;
  ProbeRecord b = TcpResult("node-b", 1.4e10);
  b.info["interface"] = "ens1f0np0";
  recorded.Record(b);
  recorded.Record(TcpResult("node-c", 2e9));
  ASSERT_TRUE(recorded.Save(path).ok());

  ResultStore replay;  // Nothing Expect()ed: a recording brings its own keys.
  ASSERT_TRUE(replay.Load(path, ResultStore::LoadScope::kEverything).ok());
  auto records = replay.Snapshot();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].info.at("interface"), "ens1f0np0");
  EXPECT_EQ(records[1].values.at(ProbeValue::kThroughput), 2e9);

  ResultStore restart;  // The default scope takes back only configured probes.
  ASSERT_TRUE(restart.Load(path).ok());
  EXPECT_TRUE(restart.Snapshot().empty());
}

TEST(ResultStoreTest, CorruptOrMissingFileIsReportedNotFatal) {
  testing::TestDir dir;
  ResultStore store;
  store.Expect(TcpKey("node-b"));
  auto missing = store.Load((dir.path() / "none.yml").string());
  EXPECT_TRUE(missing.absent());
  auto garbage = dir.Write("garbage.yml", "version: 1\nresults: [{kind: tcp, target: [\n");
  auto status = store.Load(garbage);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("garbage.yml:"), std::string::npos);
  auto wrong = dir.Write("wrong.yml", "version: 1\nresults:\n  - kind: tcp\n    target: node-b\n");
  EXPECT_FALSE(store.Load(wrong).ok());
  EXPECT_EQ(store.Snapshot().at(0).timestamp_seconds, 0);  // Nothing half-loaded.
}

// LoadText (the state-file fuzz target's entry point) is Load without the
// file: same records, errors naming the given source.
TEST(ResultStoreTest, LoadTextParsesWhatSaveWrote) {
  testing::TestDir dir;
  std::string path = (dir.path() / "state.yml").string();
  ResultStore store;
  store.Record(TcpResult("node-b", 1.4e10));
  ASSERT_TRUE(store.Save(path).ok());
  std::string text = ReadAll(path);
  ResultStore loaded;
  loaded.Expect(TcpKey("node-b"));
  ASSERT_TRUE(loaded.LoadText(text, "mem").ok());
  EXPECT_EQ(loaded.Snapshot().at(0).values.at(ProbeValue::kThroughput), 1.4e10);
  auto bad = loaded.LoadText("version: 1\nresults: [\n", "mem");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("mem:", 0), 0u);
}

TEST(ProbeResultsCollectorTest, SeriesExistBeforeTheFirstRunAndCarryVerdicts) {
  ResultStore store;
  store.Expect(TcpKey("node-b"));
  store.Expect(TcpKey("node-c"));
  store.Record(TcpResult("node-b", 1.4e10));
  ProbeRecord failed;
  failed.key = TcpKey("node-c");
  failed.timestamp_seconds = 1764500100;
  failed.failure_reason = "auth";
  store.Record(failed);
  auto collector = MakeProbeResultsCollector(store, nullptr);
  MetricSink sink;
  ASSERT_TRUE(collector->Collect(sink).ok());
  std::string text = prometheus::TextSerializer().Serialize(sink.TakeSorted());
  EXPECT_NE(
      text.find("fabric_probe_throughput_bytes_per_second{direction=\"send\",probe=\"tcp_multi\","
                "target=\"node-b\"} 14000000000"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("verdict=\"stream_limited\"} 1"), std::string::npos);
  EXPECT_NE(
      text.find("fabric_probe_failure_info{direction=\"send\",probe=\"tcp_multi\",reason=\"auth\","
                "target=\"node-c\"} 1"),
      std::string::npos);
}

// The state file keeps names: a file of an older or newer exporter loads what
// this one knows, drops values and verdicts no longer in the catalogue (they
// were never published) and skips records of rungs it does not know.
TEST(ResultStoreTest, StateFileNamesOutsideTheCatalogueAreDropped) {
  const std::string text =
      "version: 1\nresults:\n"
      "  - {probe: tcp_multi, target: node-b, direction: send, timestamp: 5, success: true,\n"
      "     failure_reason: '', failure_detail: '', duration: 1,\n"
      "     values: {throughput_bytes_per_second: 7, copy_throughput_bytes_per_second: 3},\n"
      "     verdicts: {cpu_bound: true, warp_drive_limited: true}, info: {}}\n"
      "  - {probe: tcp_multi_teleport, target: node-b, direction: send, timestamp: 5,\n"
      "     success: true, failure_reason: '', failure_detail: '', duration: 1, values: {},\n"
      "     verdicts: {}, info: {}}\n";
  ResultStore store;
  ASSERT_TRUE(store.LoadText(text, "mem", ResultStore::LoadScope::kEverything).ok());
  auto records = store.Snapshot();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].key, TcpKey("node-b"));
  EXPECT_EQ(records[0].values, (std::map<ProbeValue, double>{{ProbeValue::kThroughput, 7}}));
  EXPECT_EQ(records[0].verdicts, (std::map<Verdict, bool>{{Verdict::kCpuBound, true}}));
}

// A recorded state file (the nics fixture's) loads completely, and what Save
// writes of it loads back to the same records: names, values, verdicts, info.
TEST(ResultStoreTest, RecordedStateFileRoundTrips) {
  const std::string recording =
      std::string(FABRIC_SOURCE_DIR) + "/tests/fixtures/nics/probes.rec.yml";
  ResultStore recorded;
  ASSERT_TRUE(recorded.Load(recording, ResultStore::LoadScope::kEverything).ok());
  auto records = recorded.Snapshot();
  ASSERT_EQ(records.size(), 23u);
  size_t values = 0;
  for (const auto& r : records) values += r.values.size();
  // 8 TCP rung records and 2 copy-mode ones of 16 values (the copy ones + their sendfile
  // reference), the RDMA success (6), 2 path (4), 2 storage (7) records, 2 sweep records (4)
  // and 5 storage comparisons (7 + streams; the buffered one + its direct reference).
  EXPECT_EQ(values, 10u * 16 + 2 + 6 + 2 * 4 + 2 * 7 + 2 * 4 + 5 * 8 + 1);
  testing::TestDir dir;
  std::string path = (dir.path() / "state.yml").string();
  ASSERT_TRUE(recorded.Save(path).ok());
  ResultStore again;
  ASSERT_TRUE(again.Load(path, ResultStore::LoadScope::kEverything).ok());
  auto reloaded = again.Snapshot();
  ASSERT_EQ(reloaded.size(), records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ(reloaded[i].key, records[i].key);
    EXPECT_EQ(reloaded[i].values, records[i].values);
    EXPECT_EQ(reloaded[i].verdicts, records[i].verdicts);
    EXPECT_EQ(reloaded[i].info, records[i].info);
    EXPECT_EQ(reloaded[i].failure_reason, records[i].failure_reason);
  }
}

}  // namespace
}  // namespace fabric

namespace fabric {
namespace {

// The planned period: set by Expect, kept across runs and restarts (the
// configured one wins over the saved one), saved for recordings, exported on
// every record, before the first run too; and the budget's two gauges.
TEST(ResultStoreTest, PeriodIsTheSchedulesAndEveryRecordExportsIt) {
  testing::TestDir dir;
  std::string path = (dir.path() / "state.yml").string();
  ResultStore store;
  store.Expect(TcpKey("node-b"), 1200);
  store.Expect(TcpKey("node-c"), 1200);
  store.Record(TcpResult("node-b", 1.4e10));
  EXPECT_EQ(store.Find(TcpKey("node-b"))->period_seconds, 1200);
  ASSERT_TRUE(store.Save(path).ok());
  EXPECT_NE(ReadAll(path).find("period: 1200"), std::string::npos);

  ResultStore replay;  // A recording: the saved period.
  ASSERT_TRUE(replay.Load(path, ResultStore::LoadScope::kEverything).ok());
  EXPECT_EQ(replay.Find(TcpKey("node-b"))->period_seconds, 1200);
  ResultStore restarted;  // The plan changed: the configured period.
  restarted.Expect(TcpKey("node-b"), 3600);
  ASSERT_TRUE(restarted.Load(path).ok());
  EXPECT_EQ(restarted.Find(TcpKey("node-b"))->period_seconds, 3600);
  EXPECT_EQ(restarted.Find(TcpKey("node-b"))->values.at(ProbeValue::kThroughput), 1.4e10);

  auto collector = MakeProbeResultsCollector(store, nullptr, [] {
    return BudgetState{0.05,
                       0.02,
                       {120.5, 3'000'000'000, {{{"mlx5_0", 1}, 8'000'000'000}}},
                       {60, 2'000'000'000, {}}};
  });
  MetricSink sink;
  ASSERT_TRUE(collector->Collect(sink).ok());
  std::string text = prometheus::TextSerializer().Serialize(sink.TakeSorted());
  for (const char* target : {"node-b", "node-c"}) {
    EXPECT_NE(text.find(std::string("fabric_probe_period_seconds{direction=\"send\",probe=\"tcp_"
                                    "multi\",target=\"") +
                        target + "\"} 1200"),
              std::string::npos)
        << text;
  }
  EXPECT_NE(text.find("fabric_probe_budget_ratio 0.05"), std::string::npos) << text;
  EXPECT_NE(text.find("fabric_probe_busy_ratio 0.02"), std::string::npos);
  EXPECT_NE(text.find("fabric_probe_spent_seconds_total{role=\"requester\"} 120.5"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("fabric_probe_spent_bytes_total{role=\"responder\"} 2000000000"),
            std::string::npos)
      << text;
  // The RDMA probe's bytes per local port, apart from the TCP streams'.
  EXPECT_NE(text.find("fabric_probe_spent_rdma_bytes_total{device=\"mlx5_0\",port=\"1\","
                      "role=\"requester\"} 8000000000"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("fabric_probe_spent_rdma_bytes_total{device=\"mlx5_0\",port=\"1\","
                      "role=\"responder\""),
            std::string::npos);
}

}  // namespace
}  // namespace fabric

namespace fabric {
namespace {

// A run of `TcpKey(peer)` at `timestamp` moving `throughput`, flagged as given.
ProbeRecord TcpRun(double timestamp, double throughput, bool contended, bool cpu_bound) {
  ProbeRecord r = TcpResult("node-b", throughput);
  r.timestamp_seconds = timestamp;
  r.verdicts[Verdict::kContended] = contended;
  r.verdicts[Verdict::kCpuBound] = cpu_bound;
  return r;
}

std::string Exposition(const ResultStore& store) {
  auto collector = MakeProbeResultsCollector(store, nullptr);
  MetricSink sink;
  EXPECT_TRUE(collector->Collect(sink).ok());
  return prometheus::TextSerializer().Serialize(sink.TakeSorted());
}

// Issue 41 item 4: a contended run (a transfer sharing the path) never replaces the last
// uncontended result of its rung, a CPU-bound one never the last clean one, a failed run
// neither; each is published with the time its run ended, beside the latest result.
TEST(ResultStoreTest, ContendedRunsNeverReplaceTheLastCleanResult) {
  ResultStore store;
  store.Expect(TcpKey("node-b"));
  store.Record(TcpRun(1000, 2.3e10, false, false));  // Clean.
  store.Record(TcpRun(2000, 9.1e9, true, false));    // A transfer shared the path.
  auto r = store.Find(TcpKey("node-b"));
  EXPECT_EQ(r->values.at(ProbeValue::kThroughput), 9.1e9);  // The latest is the latest.
  EXPECT_EQ(r->uncontended, (KeptResult{1000, 2.3e10}));
  EXPECT_EQ(r->clean, (KeptResult{1000, 2.3e10}));
  std::string text = Exposition(store);
  const std::string key = "{direction=\"send\",probe=\"tcp_multi\",target=\"node-b\"}";
  EXPECT_NE(text.find("fabric_probe_throughput_bytes_per_second" + key + " 9100000000"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("fabric_probe_uncontended_throughput_bytes_per_second" + key + " 23000000000"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("fabric_probe_uncontended_timestamp_seconds" + key + " 1000"),
            std::string::npos);
  EXPECT_NE(text.find("fabric_probe_clean_timestamp_seconds" + key + " 1000"), std::string::npos);

  store.Record(TcpRun(3000, 1.9e10, false, true));  // Uncontended but CPU-bound.
  r = store.Find(TcpKey("node-b"));
  EXPECT_EQ(r->uncontended, (KeptResult{3000, 1.9e10}));
  EXPECT_EQ(r->clean, (KeptResult{1000, 2.3e10}));

  ProbeRecord failed;
  failed.key = TcpKey("node-b");
  failed.timestamp_seconds = 4000;
  failed.failure_reason = "busy";
  store.Record(failed);
  r = store.Find(TcpKey("node-b"));
  EXPECT_EQ(r->uncontended, (KeptResult{3000, 1.9e10}));
  EXPECT_EQ(r->clean, (KeptResult{1000, 2.3e10}));
  text = Exposition(store);
  EXPECT_EQ(text.find("fabric_probe_throughput_bytes_per_second" + key), std::string::npos);
  EXPECT_NE(text.find("fabric_probe_clean_throughput_bytes_per_second" + key + " 23000000000"),
            std::string::npos)
      << text;

  store.Record(TcpRun(5000, 2.4e10, false, false));  // A clean run replaces both.
  r = store.Find(TcpKey("node-b"));
  EXPECT_EQ(r->uncontended, (KeptResult{5000, 2.4e10}));
  EXPECT_EQ(r->clean, (KeptResult{5000, 2.4e10}));
}

// The best clean result of the window (the rules' longBaselineWindow) stands through a slow
// decline and contended or CPU-bound runs, a faster clean run replaces it, and once it is older
// than the window the next clean run does; it survives a restart through the state file.
TEST(ResultStoreTest, TheBestCleanResultStandsForItsWindow) {
  constexpr double kDay = 86400;
  ResultStore store;
  store.SetBestWindow(30 * kDay);
  store.Expect(TcpKey("node-b"));
  store.Record(TcpRun(1 * kDay, 2.43e10, false, false));   // 194 Gbit/s.
  store.Record(TcpRun(8 * kDay, 2.2e10, false, false));    // A step down.
  store.Record(TcpRun(15 * kDay, 3e10, true, false));      // Contended: not evidence.
  store.Record(TcpRun(16 * kDay, 3e10, false, true));      // CPU-bound: nor this.
  store.Record(TcpRun(29 * kDay, 1.86e10, false, false));  // 149 Gbit/s.
  EXPECT_EQ(store.Find(TcpKey("node-b"))->best, (KeptResult{1 * kDay, 2.43e10}));
  store.Record(TcpRun(30 * kDay, 2.5e10, false, false));  // Faster: the new best.
  EXPECT_EQ(store.Find(TcpKey("node-b"))->best, (KeptResult{30 * kDay, 2.5e10}));
  store.Record(TcpRun(61 * kDay, 1.8e10, false, false));  // The best aged out: this one.
  EXPECT_EQ(store.Find(TcpKey("node-b"))->best, (KeptResult{61 * kDay, 1.8e10}));

  testing::TestDir dir;
  std::string path = (dir.path() / "state.yml").string();
  ASSERT_TRUE(store.Save(path).ok());
  ResultStore restarted;
  restarted.Expect(TcpKey("node-b"));
  ASSERT_TRUE(restarted.Load(path).ok());
  EXPECT_EQ(restarted.Find(TcpKey("node-b"))->best, (KeptResult{61 * kDay, 1.8e10}));

  ResultStore without;  // No window (the CLI's store): no best kept.
  without.Record(TcpRun(1000, 2.3e10, false, false));
  EXPECT_FALSE(without.Find(TcpKey("node-b"))->best);
}

// A rung that never ran uncontended has no kept result and no such series (nothing to divide
// by is better than a contended share).
TEST(ResultStoreTest, NoKeptResultBeforeAnUncontendedRun) {
  ResultStore store;
  store.Record(TcpRun(2000, 9.1e9, true, false));
  EXPECT_FALSE(store.Find(TcpKey("node-b"))->uncontended);
  EXPECT_FALSE(store.Find(TcpKey("node-b"))->clean);
  EXPECT_EQ(Exposition(store).find("fabric_probe_uncontended"), std::string::npos);
}

// The kept results survive a restart through the state file, beside the latest (contended)
// result; a file without them (an older exporter's, a hand-written recording) derives them
// from each record's own run.
TEST(ResultStoreTest, KeptResultsRoundTripThroughTheStateFile) {
  testing::TestDir dir;
  std::string path = (dir.path() / "state.yml").string();
  ResultStore store;
  store.Expect(TcpKey("node-b"));
  store.Record(TcpRun(1000, 2.3e10, false, false));
  store.Record(TcpRun(2000, 1.9e10, false, true));
  store.Record(TcpRun(3000, 9.1e9, true, false));
  ASSERT_TRUE(store.Save(path).ok());
  EXPECT_NE(ReadAll(path).find("uncontended: {timestamp: 2000, bytes_per_second: 19000000000}"),
            std::string::npos)
      << ReadAll(path);

  ResultStore restarted;
  restarted.Expect(TcpKey("node-b"));
  ASSERT_TRUE(restarted.Load(path).ok());
  auto r = restarted.Find(TcpKey("node-b"));
  EXPECT_EQ(r->values.at(ProbeValue::kThroughput), 9.1e9);
  EXPECT_TRUE(r->verdicts.at(Verdict::kContended));
  EXPECT_EQ(r->uncontended, (KeptResult{2000, 1.9e10}));
  EXPECT_EQ(r->clean, (KeptResult{1000, 2.3e10}));

  const std::string older =
      "version: 1\nresults:\n"
      "  - {probe: tcp_multi, target: node-b, direction: send, timestamp: 5, success: true,\n"
      "     failure_reason: '', failure_detail: '', duration: 1,\n"
      "     values: {throughput_bytes_per_second: 7}, verdicts: {cpu_bound: true}, info: {}}\n";
  ResultStore replay;
  ASSERT_TRUE(replay.LoadText(older, "mem", ResultStore::LoadScope::kEverything).ok());
  r = replay.Find(TcpKey("node-b"));
  EXPECT_EQ(r->uncontended, (KeptResult{5, 7}));
  EXPECT_FALSE(r->clean);

  ResultStore broken;
  EXPECT_FALSE(broken
                   .LoadText("version: 1\nresults:\n"
                             "  - {probe: tcp_multi, target: node-b, direction: send, timestamp: "
                             "5, success: true, failure_reason: '', failure_detail: '', "
                             "duration: 1, values: {}, verdicts: {}, info: {},\n"
                             "     clean: {timestamp: 5, bytes_per_second: .nan}}\n",
                             "mem", ResultStore::LoadScope::kEverything)
                   .ok());
}

}  // namespace
}  // namespace fabric
