#include "exporter/collectors/collective_collector.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "tests/unit/exporter/collectors/collector_harness.h"
#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

using testing::Has;
using testing::ScrapeWith;

const std::string kTree = std::string(FABRIC_SOURCE_DIR) + "/tests/fixtures/nfs-rdma";

std::string Settings(const std::string& dir, const std::string& more = "") {
  return "{directory: \"" + dir + "\", max_age: 36500d" + more + "}";
}

void Age(const std::string& path, std::chrono::hours by) {
  std::filesystem::last_write_time(path, std::filesystem::file_time_type::clock::now() - by);
}

TEST(CollectiveCollectorTest, InspectorAndNcclTestsFilesOfTheFixture) {
  auto s = ScrapeWith(&MakeCollectiveCollector, kTree, Settings(kTree + "/nccl"));
  ASSERT_TRUE(s.status.ok()) << s.status.error().message;
  const std::string& t = s.text;
  // The better GPU of the two Inspector files for the 2 GiB AllReduce across nodes.
  EXPECT_TRUE(Has(t,
                  "fabric_collective_bus_bandwidth_bytes_per_second{collective=\"AllReduce\","
                  "message_size=\"256MiB-4GiB\",scope=\"inter_node\",source=\"nccl_inspector\"} "
                  "21804600000"))
      << t;
  EXPECT_TRUE(Has(t,
                  "fabric_collective_bus_bandwidth_bytes_per_second{collective=\"AllGather\","
                  "message_size=\"256MiB-4GiB\",scope=\"intra_node\",source=\"nccl_inspector\"} "
                  "298564000000"));
  // nccl-tests: 4 GiB and 8 GiB share the 4GiB+ bucket; 8 GiB in place is the best.
  EXPECT_TRUE(Has(t,
                  "fabric_collective_bus_bandwidth_bytes_per_second{collective=\"AllReduce\","
                  "message_size=\"4GiB+\",scope=\"inter_node\",source=\"nccl_tests\"} "
                  "22005786000"));
  EXPECT_TRUE(Has(t,
                  "fabric_collective_algorithm_bandwidth_bytes_per_second{collective=\"AllReduce\","
                  "message_size=\"1MiB-16MiB\",scope=\"inter_node\",source=\"nccl_tests\"} "
                  "5574567000"));
  EXPECT_TRUE(Has(t, "fabric_collective_files{source=\"nccl_inspector\",state=\"read\"} 2"));
  EXPECT_TRUE(Has(t, "fabric_collective_files{source=\"nccl_tests\",state=\"read\"} 1"));
  // The run still writing its JSON fails alone.
  EXPECT_TRUE(Has(t, "fabric_collective_files{source=\"nccl_tests\",state=\"failed\"} 1"));
  EXPECT_TRUE(
      Has(t, "fabric_collective_file_errors{reason=\"truncated\",source=\"nccl_tests\"} 1"));
  EXPECT_NE(t.find("fabric_collective_measurement_age_seconds{collective=\"AllReduce\""),
            std::string::npos);
}

TEST(CollectiveCollectorTest, NoDirectoryConfiguredOrNoneThereIsSuccessWithoutSamples) {
  auto none = ScrapeWith(&MakeCollectiveCollector, kTree);
  EXPECT_TRUE(none.status.ok());
  EXPECT_EQ(none.text, "");
  auto missing = ScrapeWith(&MakeCollectiveCollector, kTree, Settings(kTree + "/no-such-dir"));
  EXPECT_TRUE(missing.status.ok());
  EXPECT_EQ(missing.text, "");
}

TEST(CollectiveCollectorTest, StaleFilesAndMeasurementsAreLeftOut) {
  testing::TestDir dir;
  const std::string line =
      "nccl_bus_bandwidth_gbs{collective=\"AllReduce\",n_nodes=\"2\",message_size=\"4.00GB\"} 20\n";
  Age(dir.Write("old.prom", line), std::chrono::hours(48));
  dir.Write("new.prom", line);
  // A communicator that finished long ago: its timestamp label is a year old.
  dir.Write("gone.prom",
            "nccl_bus_bandwidth_gbs{collective=\"Broadcast\",n_nodes=\"2\","
            "timestamp=\"2020-01-01T00:00:00Z\",message_size=\"4.00GB\"} 20\n");
  auto s = ScrapeWith(&MakeCollectiveCollector, dir.path().string(),
                      "{directory: \"" + dir.path().string() + "\", max_age: 1d}");
  ASSERT_TRUE(s.status.ok());
  EXPECT_TRUE(Has(s.text, "fabric_collective_files{source=\"nccl_inspector\",state=\"stale\"} 1"))
      << s.text;
  EXPECT_TRUE(Has(s.text, "fabric_collective_files{source=\"nccl_inspector\",state=\"read\"} 2"));
  EXPECT_NE(s.text.find("collective=\"AllReduce\""), std::string::npos);
  EXPECT_EQ(s.text.find("collective=\"Broadcast\""), std::string::npos);
}

TEST(CollectiveCollectorTest, BoundsOnFilesBytesAndSeries) {
  testing::TestDir dir;
  for (int i = 0; i < 4; ++i) {
    std::string path =
        dir.Write("gpu" + std::to_string(i) + ".prom",
                  "nccl_bus_bandwidth_gbs{collective=\"C" + std::to_string(i) +
                      "\",n_nodes=\"2\",message_size=\"1.00GB\"} " + std::to_string(10 + i) + "\n");
    Age(path, std::chrono::hours(i));  // gpu0 the newest.
  }
  dir.Write("big.json", std::string(4096, ' ') + "{}");
  dir.Write("notes.txt", "ignored");
  auto s = ScrapeWith(
      &MakeCollectiveCollector, dir.path().string(),
      Settings(dir.path().string(), ", max_files: 4, max_series: 2, max_file_bytes: 1024"));
  ASSERT_TRUE(s.status.ok());
  const std::string& t = s.text;
  // big.json is the newest of five; gpu3, the oldest, is over the limit.
  EXPECT_TRUE(Has(t, "fabric_collective_files{source=\"nccl_inspector\",state=\"over_limit\"} 1"))
      << t;
  EXPECT_TRUE(
      Has(t, "fabric_collective_file_errors{reason=\"too_large\",source=\"nccl_tests\"} 1"));
  // C0, C1 kept by name; C2 folded into other.
  EXPECT_NE(t.find("collective=\"C0\""), std::string::npos);
  EXPECT_NE(t.find("collective=\"C1\""), std::string::npos);
  EXPECT_EQ(t.find("collective=\"C2\""), std::string::npos);
  EXPECT_TRUE(Has(t,
                  "fabric_collective_bus_bandwidth_bytes_per_second{collective=\"other\","
                  "message_size=\"other\",scope=\"other\",source=\"nccl_inspector\"} 12000000000"));
  EXPECT_TRUE(Has(t, "fabric_collective_folded_series{source=\"nccl_inspector\"} 1"));
}

TEST(CollectiveCollectorTest, ABrokenFileFailsAloneWithItsReason) {
  testing::TestDir dir;
  dir.Write(
      "ok.prom",
      "nccl_bus_bandwidth_gbs{collective=\"AllReduce\",n_nodes=\"2\",message_size=\"4.00GB\"} "
      "20\n");
  dir.Write("bad.prom", "nccl_bus_bandwidth_gbs{collective=AllReduce} 20\n");
  dir.Write("empty.json", "{\"results\": []}");
  dir.Write("x.json.3", "garbage");
  auto s = ScrapeWith(&MakeCollectiveCollector, dir.path().string(), Settings(dir.path().string()));
  ASSERT_TRUE(s.status.ok());
  const std::string& t = s.text;
  EXPECT_TRUE(
      Has(t, "fabric_collective_file_errors{reason=\"syntax\",source=\"nccl_inspector\"} 1"))
      << t;
  EXPECT_TRUE(Has(t, "fabric_collective_file_errors{reason=\"syntax\",source=\"nccl_tests\"} 1"));
  EXPECT_TRUE(
      Has(t, "fabric_collective_file_errors{reason=\"no_results\",source=\"nccl_tests\"} 1"));
  EXPECT_NE(t.find("fabric_collective_bus_bandwidth_bytes_per_second{collective=\"AllReduce\""),
            std::string::npos);
}

}  // namespace
}  // namespace fabric
