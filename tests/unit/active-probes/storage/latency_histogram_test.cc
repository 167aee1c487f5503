#include "active-probes/storage/latency_histogram.h"

#include <gtest/gtest.h>

namespace fabric::storage {
namespace {

TEST(LatencyHistogram, SmallValuesAreExact) {
  for (uint64_t v = 0; v < 128; ++v) {
    EXPECT_EQ(LatencyHistogram::BucketOf(v), v);
    EXPECT_EQ(LatencyHistogram::BucketMidpoint(v), v);
  }
}

TEST(LatencyHistogram, BucketsAreMonotonicAndTight) {
  size_t last = 0;
  for (uint64_t v = 100; v < (1ull << 40); v = v * 3 / 2 + 7) {
    size_t b = LatencyHistogram::BucketOf(v);
    EXPECT_GE(b, last);
    last = b;
    double mid = static_cast<double>(LatencyHistogram::BucketMidpoint(b));
    EXPECT_NEAR(mid, static_cast<double>(v), static_cast<double>(v) * 0.008) << v;
  }
  EXPECT_LT(LatencyHistogram::BucketOf(UINT64_MAX), 7424u);
}

TEST(LatencyHistogram, QuantilesOfUniformMicroseconds) {
  LatencyHistogram h;
  for (uint64_t us = 1; us <= 10000; ++us) h.Record(us * 1000);
  EXPECT_EQ(h.count(), 10000u);
  EXPECT_NEAR(h.Quantile(0.5), 5'000'000, 40'000);
  EXPECT_NEAR(h.Quantile(0.99), 9'900'000, 80'000);
  EXPECT_NEAR(h.Quantile(0.999), 9'990'000, 80'000);
  EXPECT_EQ(h.Quantile(1.0), 10'000'000u);  // Never above the true maximum.
  EXPECT_NEAR(h.mean(), 5'000'500, 1);
}

TEST(LatencyHistogram, MergeAddsCounts) {
  LatencyHistogram a, b;
  for (int i = 0; i < 99; ++i) a.Record(1000);
  b.Record(1'000'000);
  a.Merge(b);
  EXPECT_EQ(a.count(), 100u);
  EXPECT_EQ(a.max(), 1'000'000u);
  EXPECT_NEAR(a.Quantile(0.5), 1000, 8);
  EXPECT_NEAR(a.Quantile(1.0), 1'000'000, 8000);
}

TEST(LatencyHistogram, EmptyIsZero) {
  LatencyHistogram h;
  EXPECT_EQ(h.Quantile(0.5), 0u);
  EXPECT_EQ(h.mean(), 0);
}

}  // namespace
}  // namespace fabric::storage
