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

ProbeRecord TcpResult(std::string peer, double throughput) {
  ProbeRecord r;
  r.key = {"tcp_multi", std::move(peer), "send"};
  r.timestamp_seconds = 1764500000;
  r.success = true;
  r.duration_seconds = 12.5;
  r.values["throughput_bytes_per_second"] = throughput;
  r.values["streams"] = 8;
  r.values["not_in_catalogue"] = 1;
  r.verdicts["cpu_bound"] = false;
  r.verdicts["stream_limited"] = true;
  return r;
}

TEST(ResultStoreTest, SaveAndLoadRoundTripOnlyConfiguredProbes) {
  testing::TestDir dir;
  std::string path = (dir.path() / "state.yml").string();
  ResultStore store;
  store.Expect({"tcp_multi", "node-b", "send"});
  store.Record(TcpResult("node-b", 1.4e10));
  store.Record(TcpResult("node-gone", 2e9));
  ASSERT_TRUE(store.Save(path).ok());
  // No temporary file is left beside the state file.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);

  ResultStore restarted;
  restarted.Expect({"tcp_multi", "node-b", "send"});
  restarted.Expect({"tcp_multi", "node-c", "send"});
  ASSERT_TRUE(restarted.Load(path).ok());
  auto records = restarted.Snapshot();
  ASSERT_EQ(records.size(), 2u);  // node-gone is no longer configured.
  EXPECT_EQ(records[0].key.target, "node-b");
  EXPECT_EQ(records[0].values.at("throughput_bytes_per_second"), 1.4e10);
  EXPECT_TRUE(records[0].verdicts.at("stream_limited"));
  EXPECT_EQ(records[1].key.target, "node-c");
  EXPECT_EQ(records[1].timestamp_seconds, 0);
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
  EXPECT_EQ(records[1].values.at("throughput_bytes_per_second"), 2e9);

  ResultStore restart;  // The default scope takes back only configured probes.
  ASSERT_TRUE(restart.Load(path).ok());
  EXPECT_TRUE(restart.Snapshot().empty());
}

TEST(ResultStoreTest, CorruptOrMissingFileIsReportedNotFatal) {
  testing::TestDir dir;
  ResultStore store;
  store.Expect({"tcp_multi", "node-b", "send"});
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
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ResultStore loaded;
  loaded.Expect({"tcp_multi", "node-b", "send"});
  ASSERT_TRUE(loaded.LoadText(text, "mem").ok());
  EXPECT_EQ(loaded.Snapshot().at(0).values.at("throughput_bytes_per_second"), 1.4e10);
  auto bad = loaded.LoadText("version: 1\nresults: [\n", "mem");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("mem:", 0), 0u);
}

TEST(ProbeResultsCollectorTest, SeriesExistBeforeTheFirstRunAndCarryVerdicts) {
  ResultStore store;
  store.Expect({"tcp_multi", "node-b", "send"});
  store.Expect({"tcp_multi", "node-c", "send"});
  store.Record(TcpResult("node-b", 1.4e10));
  ProbeRecord failed;
  failed.key = {"tcp_multi", "node-c", "send"};
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
  EXPECT_EQ(text.find("not_in_catalogue"), std::string::npos);
}

}  // namespace
}  // namespace fabric
