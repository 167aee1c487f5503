#include "exporter/path_mesh/path_stats.h"

#include <gtest/gtest.h>

#include "exporter/metrics/exposition.h"

namespace fabric {
namespace {

TEST(PathStatsTest, CountsProbesLossAndBuckets) {
  PathStats stats({"node-b", "node-c"});
  stats.Record("node-b", 30e-6);  // (25us, 50us]
  stats.Record("node-b", 50e-6);  // bounds are inclusive: (25us, 50us]
  stats.Record("node-b", 0.2);    // above 100 ms: +Inf only
  stats.Record("node-b", std::nullopt);
  stats.Record("node-x", 1e-3);  // not a mesh peer: ignored
  PathCounts b = stats.Counts("node-b");
  EXPECT_EQ(b.probes, 4u);
  EXPECT_EQ(b.lost, 1u);
  EXPECT_EQ(b.answered(), 3u);
  EXPECT_EQ(b.buckets[3], 2u);  // le=5e-05
  EXPECT_EQ(b.buckets[kPathRttBuckets.size()], 1u);
  EXPECT_DOUBLE_EQ(b.rtt_sum_seconds, 30e-6 + 50e-6 + 0.2);
  EXPECT_EQ(stats.Counts("node-c").probes, 0u);
  EXPECT_EQ(stats.Counts("node-x").probes, 0u);
}

TEST(PathStatsTest, ExposesAHistogramAndCountersPerTarget) {
  PathStats stats({"node-b", "node-c"});
  stats.Record("node-b", 30e-6);
  stats.Record("node-b", 2e-3);
  stats.Record("node-b", std::nullopt);
  MetricSink sink;
  stats.Collect(sink);
  const std::string text = WriteTextExposition(sink.TakeSorted());
  auto has = [&text](const std::string& line) {
    EXPECT_NE(text.find(line + "\n"), std::string::npos) << line << " not in\n" << text;
  };
  has("# TYPE fabric_path_rtt_seconds histogram");
  has("fabric_path_rtt_seconds_count{target=\"node-b\"} 2");
  has("fabric_path_rtt_seconds_bucket{target=\"node-b\",le=\"2.5e-05\"} 0");
  has("fabric_path_rtt_seconds_bucket{target=\"node-b\",le=\"5e-05\"} 1");
  has("fabric_path_rtt_seconds_bucket{target=\"node-b\",le=\"0.001\"} 1");
  has("fabric_path_rtt_seconds_bucket{target=\"node-b\",le=\"0.0025\"} 2");
  has("fabric_path_rtt_seconds_bucket{target=\"node-b\",le=\"0.1\"} 2");
  has("fabric_path_rtt_seconds_bucket{target=\"node-b\",le=\"+Inf\"} 2");
  has("fabric_path_probes_total{target=\"node-b\"} 3");
  has("fabric_path_lost_total{target=\"node-b\"} 1");
  // A peer not yet probed is there at zero, so the first loss is an increase.
  has("fabric_path_probes_total{target=\"node-c\"} 0");
  has("fabric_path_lost_total{target=\"node-c\"} 0");
  has("fabric_path_rtt_seconds_bucket{target=\"node-c\",le=\"+Inf\"} 0");
  // Bounded: one histogram (15 buckets, sum, count) and two counters per peer.
  size_t samples = 0;
  for (size_t at = 0; (at = text.find("\nfabric_path_", at)) != std::string::npos; ++at) ++samples;
  EXPECT_EQ(samples, 2 * (kPathRttBuckets.size() + 1 + 2 + 2));
}

}  // namespace
}  // namespace fabric
