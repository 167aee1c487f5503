#include "exporter/metrics/metric_sink.h"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

namespace fabric {
namespace {

std::string Serialize(MetricSink& sink) {
  return prometheus::TextSerializer().Serialize(sink.TakeSorted());
}

TEST(MetricSinkTest, OutputIsSortedWhateverTheInsertionOrder) {
  MetricSink a, b;
  a.Gauge("z_metric", "z", {{"cpu", "1"}}, 1);
  a.Gauge("z_metric", "z", {{"cpu", "0"}}, 0);
  a.Counter("a_total", "a", {{"y", "1"}, {"x", "2"}}, 3);
  b.Counter("a_total", "a", {{"x", "2"}, {"y", "1"}}, 3);
  b.Gauge("z_metric", "z", {{"cpu", "0"}}, 0);
  b.Gauge("z_metric", "z", {{"cpu", "1"}}, 1);
  std::string sa = Serialize(a);
  EXPECT_EQ(sa, Serialize(b));
  EXPECT_LT(sa.find("a_total"), sa.find("z_metric"));
  EXPECT_LT(sa.find("cpu=\"0\""), sa.find("cpu=\"1\""));
  EXPECT_NE(sa.find("a_total{x=\"2\",y=\"1\"} 3"), std::string::npos) << sa;
}

TEST(MetricSinkTest, MergeKeepsEveryFamilyAndCountsSamples) {
  MetricSink a, b;
  a.Gauge("g", "h", {}, 1);
  b.Gauge("g", "h", {{"k", "v"}}, 2);
  b.Info("i_info", "h", {{"k", "v"}});
  a.MergeFrom(std::move(b));
  EXPECT_EQ(a.sample_count(), 3u);
  EXPECT_TRUE(b.empty());
}

TEST(MetricSinkTest, HistogramKeepsBucketsCountAndSum) {
  MetricSink sink;
  const double bounds[] = {0.001, 0.01};
  const uint64_t cumulative[] = {2, 5};
  sink.Histogram("h_seconds", "help", {{"target", "b"}}, bounds, cumulative, 7, 0.5);
  auto families = sink.TakeSorted();
  ASSERT_EQ(families.size(), 1u);
  EXPECT_EQ(families[0].type, prometheus::MetricType::Histogram);
  const auto& h = families[0].metric.at(0).histogram;
  EXPECT_EQ(h.sample_count, 7u);
  EXPECT_EQ(h.sample_sum, 0.5);
  ASSERT_EQ(h.bucket.size(), 2u);
  EXPECT_EQ(h.bucket[1].upper_bound, 0.01);
  EXPECT_EQ(h.bucket[1].cumulative_count, 5u);
  MetricSink other;
  other.Histogram("m", "h", {}, bounds, cumulative, 7, 0.5);
  EXPECT_THROW(other.Counter("m", "h", {}, 1), std::logic_error);
}

TEST(MetricSinkTest, ConflictingTypesAreRejected) {
  MetricSink a;
  a.Gauge("m", "h", {}, 1);
  EXPECT_THROW(a.Counter("m", "h", {}, 1), std::logic_error);
}

}  // namespace
}  // namespace fabric
