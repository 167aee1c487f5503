#include "common/parse/nccl_tests_parse.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace fabric {
namespace {

std::string Fixture(const std::string& name) {
  std::ifstream in(std::string(FABRIC_SOURCE_DIR) + "/tests/fixtures/nfs-rdma/nccl/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(NcclTestsParseTest, EachSizeWithTheBetterOfItsTwoRuns) {
  auto r = ParseNcclTestsJson(Fixture("all_reduce_perf.json"));
  ASSERT_FALSE(r.failure) << r.message;
  ASSERT_EQ(r.measurements.size(), 5u);
  const CollectiveMeasurement& last = r.measurements.back();
  EXPECT_EQ(last.collective, "AllReduce");
  EXPECT_EQ(last.message_bytes, 8589934592u);
  EXPECT_DOUBLE_EQ(last.bus_gbs, 22.005786);  // In place beat out of place (21.996578).
  EXPECT_DOUBLE_EQ(last.time_us.value(), 731904.2);
  EXPECT_EQ(last.nodes, 2);
  EXPECT_EQ(last.ranks, 16);
  EXPECT_FALSE(last.unix_seconds);  // Local times without a zone: the file's mtime instead.
  EXPECT_DOUBLE_EQ(r.measurements[2].bus_gbs, 21.54516);  // Out of place beat in place.
}

TEST(NcclTestsParseTest, ARunStillWritingIsTruncated) {
  auto r = ParseNcclTestsJson(Fixture("all_reduce_perf.json.0"));
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(*r.failure, CollectiveFailure::kTruncated) << r.message;
  const std::string whole = Fixture("all_reduce_perf.json");
  for (size_t cut : {size_t{1}, whole.size() / 3, whole.size() - 1}) {
    auto part = ParseNcclTestsJson(whole.substr(0, cut));
    ASSERT_TRUE(part.failure) << cut;
    EXPECT_EQ(*part.failure, CollectiveFailure::kTruncated) << cut << " " << part.message;
  }
}

TEST(NcclTestsParseTest, GarbageAndOtherJsonFail) {
  EXPECT_EQ(ParseNcclTestsJson("not json at all").failure, CollectiveFailure::kSyntax);
  EXPECT_EQ(ParseNcclTestsJson("{\"a\": 1}} trailing").failure, CollectiveFailure::kSyntax);
  EXPECT_EQ(ParseNcclTestsJson("[1, 2]").failure, CollectiveFailure::kSyntax);
  EXPECT_EQ(ParseNcclTestsJson("{\"results\": 3}").failure, CollectiveFailure::kSyntax);
  EXPECT_EQ(ParseNcclTestsJson("").failure, CollectiveFailure::kSyntax);
  // Results without a program name, or whose bandwidths are "nan", say nothing.
  EXPECT_EQ(
      ParseNcclTestsJson("{\"results\": [{\"size\": 8, \"in_place\": {\"bus_bw\": 1}}]}").failure,
      CollectiveFailure::kNoResults);
  EXPECT_EQ(ParseNcclTestsJson("{\"args\": [\"sendrecv_perf\"], \"results\": [{\"size\": 8, "
                               "\"out_of_place\": null, \"in_place\": {\"bus_bw\": \"nan\"}}]}")
                .failure,
            CollectiveFailure::kNoResults);
}

TEST(NcclTestsParseTest, TraceReplayNamesTheCollectiveAndCpuTimeStandsInForTime) {
  auto r = ParseNcclTestsJson(
      "{\"version\": 2, \"args\": [\"./alltoall_perf\"], \"results\": ["
      "{\"size\": 1024, \"out_of_place\": {\"cpu_time\": 5.0, \"alg_bw\": 0.2, \"bus_bw\": 0.19}},"
      "{\"size\": 2048, \"in_place\": {\"bus_bw\": 0.3}, \"experiment_name\": \"Broadcast\"}]}");
  ASSERT_FALSE(r.failure) << r.message;
  ASSERT_EQ(r.measurements.size(), 2u);
  EXPECT_EQ(r.measurements[0].collective, "AllToAll");
  EXPECT_DOUBLE_EQ(r.measurements[0].time_us.value(), 5.0);
  EXPECT_EQ(r.measurements[0].nodes, 0);
  EXPECT_EQ(r.measurements[1].collective, "Broadcast");
}

TEST(NcclTestsParseTest, ProgramNames) {
  EXPECT_EQ(CollectiveOfProgram("/opt/nccl-tests/build/all_reduce_perf"), "AllReduce");
  EXPECT_EQ(CollectiveOfProgram("reduce_scatter_perf_mpi"), "ReduceScatter");
  EXPECT_EQ(CollectiveOfProgram("sendrecv_perf"), "SendRecv");
  EXPECT_EQ(CollectiveOfProgram("hypercube_perf"), "Hypercube");
  EXPECT_EQ(CollectiveOfProgram("python3"), "");
  EXPECT_EQ(CollectiveOfProgram("_perf"), "");
  EXPECT_EQ(CollectiveOfProgram("a-b_perf"), "");
}

TEST(NcclTestsParseTest, AHugeRunParses) {
  std::string text = "{\"args\": [\"all_gather_perf\"], \"results\": [";
  for (int i = 0; i < 20000; ++i) {
    text += std::string(i ? "," : "") + "{\"size\": " + std::to_string(i) +
            ", \"in_place\": {\"bus_bw\": 1.5}}";
  }
  text += "]}";
  auto r = ParseNcclTestsJson(text);
  ASSERT_FALSE(r.failure);
  EXPECT_EQ(r.measurements.size(), 20000u);
}

}  // namespace
}  // namespace fabric
