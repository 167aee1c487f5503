#include "common/parse/nccl_inspector_parse.h"

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

const char kGpu0[] = "nccl_inspector_metrics_GPU-5d1e2a4c-8b0f-4f3e-9c61-2f7a0e9d4b11.prom";

TEST(NcclInspectorParseTest, EachCommunicatorsLastCollectiveWithItsCompanions) {
  auto r = ParseNcclInspectorProm(Fixture(kGpu0));
  ASSERT_FALSE(r.failure) << r.message;
  ASSERT_EQ(r.measurements.size(), 2u);
  const CollectiveMeasurement& all_reduce = r.measurements[0];
  EXPECT_EQ(all_reduce.collective, "AllReduce");
  EXPECT_EQ(all_reduce.message_bytes, 2147483648u);
  EXPECT_DOUBLE_EQ(all_reduce.bus_gbs, 21.8046);
  EXPECT_DOUBLE_EQ(all_reduce.algorithm_gbs.value(), 11.6291);
  EXPECT_DOUBLE_EQ(all_reduce.time_us.value(), 184669);
  EXPECT_EQ(all_reduce.nodes, 2);
  EXPECT_EQ(all_reduce.ranks, 16);
  EXPECT_DOUBLE_EQ(all_reduce.unix_seconds.value(), 1796095907);  // 2026-12-01T03:31:47Z
  EXPECT_EQ(r.measurements[1].collective, "AllGather");
  EXPECT_EQ(r.measurements[1].message_bytes, 268435456u);
  EXPECT_EQ(r.measurements[1].nodes, 1);
}

TEST(NcclInspectorParseTest, TheReadmesLabelNamesAndNoTimestampLabel) {
  // The plugin's README names n_ranks; a sample's own timestamp stands in for the label.
  auto r = ParseNcclInspectorProm(
      "nccl_bus_bandwidth_gbs{collective=\"Broadcast\",n_ranks=\"4\",n_nodes=\"4\","
      "message_size=\"512B\"} 0.01 1796095907000\n");
  ASSERT_FALSE(r.failure) << r.message;
  ASSERT_EQ(r.measurements.size(), 1u);
  EXPECT_EQ(r.measurements[0].ranks, 4);
  EXPECT_EQ(r.measurements[0].message_bytes, 512u);
  EXPECT_DOUBLE_EQ(r.measurements[0].unix_seconds.value(), 1796095907);
  EXPECT_FALSE(r.measurements[0].algorithm_gbs);
}

TEST(NcclInspectorParseTest, MessageSizesAndTimestamps) {
  EXPECT_EQ(ParseInspectorMessageSize("2.00GB").value(), 2147483648u);
  EXPECT_EQ(ParseInspectorMessageSize("1.50KB").value(), 1536u);
  EXPECT_EQ(ParseInspectorMessageSize("0B").value(), 0u);
  EXPECT_FALSE(ParseInspectorMessageSize("GB"));
  EXPECT_FALSE(ParseInspectorMessageSize("-1MB"));
  EXPECT_FALSE(ParseInspectorMessageSize("1e3KB"));
  EXPECT_FALSE(ParseInspectorMessageSize("99999999999TB"));
  EXPECT_DOUBLE_EQ(ParseUtcTimestamp("1970-01-01T00:00:10Z").value(), 10);
  EXPECT_FALSE(ParseUtcTimestamp("2026-13-01T00:00:00Z"));
  EXPECT_FALSE(ParseUtcTimestamp("2026-12-01 00:00:00"));
}

TEST(NcclInspectorParseTest, TruncatedGarbageAndEmptyFilesFailWithTheirReason) {
  const std::string whole = Fixture(kGpu0);
  auto truncated = ParseNcclInspectorProm(whole.substr(0, whole.size() / 2 + 7));
  ASSERT_TRUE(truncated.failure);
  // Cut inside a label set: a syntax error on the last line, which has no newline.
  EXPECT_EQ(*truncated.failure, CollectiveFailure::kTruncated) << truncated.message;
  auto garbage = ParseNcclInspectorProm("{\"header\": {}}\n");
  EXPECT_EQ(garbage.failure, CollectiveFailure::kSyntax);
  auto empty = ParseNcclInspectorProm("# nothing yet\n");
  EXPECT_EQ(empty.failure, CollectiveFailure::kNoResults);
  auto others = ParseNcclInspectorProm("node_load1 0.5\nnccl_bus_bandwidth_gbs 3\n");
  EXPECT_EQ(others.failure, CollectiveFailure::kNoResults);
}

TEST(NcclInspectorParseTest, AHugeFileParsesEveryCommunicator) {
  std::string text;
  for (int i = 0; i < 5000; ++i) {
    text += "nccl_bus_bandwidth_gbs{comm_id=\"" + std::to_string(i) +
            "\",collective=\"AllReduce\",n_nodes=\"2\",message_size=\"1.00MB\"} 1\n";
  }
  auto r = ParseNcclInspectorProm(text);
  ASSERT_FALSE(r.failure);
  EXPECT_EQ(r.measurements.size(), 5000u);
}

}  // namespace
}  // namespace fabric
