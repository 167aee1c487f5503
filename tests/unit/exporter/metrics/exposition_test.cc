#include "exporter/metrics/exposition.h"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>
#include <zlib.h>

#include <cmath>
#include <limits>
#include <random>

namespace fabric {
namespace {

prometheus::ClientMetric Sample(std::vector<prometheus::ClientMetric::Label> labels, double value,
                                prometheus::MetricType type) {
  prometheus::ClientMetric m;
  m.label = std::move(labels);
  m.counter.value = m.gauge.value = m.untyped.value = 0;
  if (type == prometheus::MetricType::Counter) m.counter.value = value;
  if (type == prometheus::MetricType::Gauge) m.gauge.value = value;
  if (type == prometheus::MetricType::Untyped) m.untyped.value = value;
  return m;
}

std::vector<prometheus::MetricFamily> Awkward() {
  const double kValues[] = {0.0,
                            -0.0,
                            1.0,
                            -1.5,
                            0.1,
                            1.0 / 3.0,
                            123456789012345678.0,
                            1e-300,
                            4.9e-324,
                            1e21,
                            725966.8715839999,
                            9007199254740993.0,
                            std::numeric_limits<double>::max(),
                            std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::quiet_NaN()};
  std::vector<prometheus::MetricFamily> out;
  for (auto type : {prometheus::MetricType::Counter, prometheus::MetricType::Gauge,
                    prometheus::MetricType::Untyped}) {
    prometheus::MetricFamily f;
    f.name = "fabric_test_" + std::to_string(static_cast<int>(type));
    f.help = type == prometheus::MetricType::Gauge ? "" : "Help with \\ backslash and \"quotes\"";
    f.type = type;
    for (double v : kValues) f.metric.push_back(Sample({}, v, type));
    f.metric.push_back(Sample({{"a", "plain"}, {"b", "quote \" back \\ end"}}, 7, type));
    f.metric.push_back(Sample({{"device", ""}}, 8, type));
    f.metric.back().timestamp_ms = 1700000000123;
    out.push_back(std::move(f));
  }
  return out;
}

TEST(ExpositionTest, SameBytesAsPrometheusCppTextSerializer) {
  auto families = Awkward();
  EXPECT_EQ(WriteTextExposition(families), prometheus::TextSerializer().Serialize(families));
}

// prometheus-cpp 1.0.1 writes a backslash and then the newline itself, which
// breaks the line; the format wants the two characters \n.
TEST(ExpositionTest, NewlineInLabelValueIsEscaped) {
  prometheus::MetricFamily f;
  f.name = "fabric_nl";
  f.type = prometheus::MetricType::Gauge;
  f.metric.push_back(Sample({{"a", "x\ny"}}, 1, f.type));
  EXPECT_EQ(WriteTextExposition({f}), "# TYPE fabric_nl gauge\nfabric_nl{a=\"x\\ny\"} 1\n");
}

TEST(ExpositionTest, SameBytesForRandomValues) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-40, 40);
  prometheus::MetricFamily f;
  f.name = "fabric_random";
  f.type = prometheus::MetricType::Gauge;
  for (int i = 0; i < 5000; ++i) {
    double v = mantissa(rng) * std::pow(10.0, exponent(rng));
    if (i % 3 == 0) v = std::round(v * 1e6);
    f.metric.push_back(Sample({{"i", std::to_string(i)}}, v, f.type));
  }
  EXPECT_EQ(WriteTextExposition({f}), prometheus::TextSerializer().Serialize({f}));
}

TEST(ExpositionTest, HistogramsFallBackToPrometheusCpp) {
  prometheus::MetricFamily f;
  f.name = "fabric_hist";
  f.type = prometheus::MetricType::Histogram;
  prometheus::ClientMetric m;
  m.histogram.sample_count = 3;
  m.histogram.sample_sum = 1.5;
  m.histogram.bucket.push_back({2, 1.0});
  f.metric.push_back(m);
  EXPECT_EQ(WriteTextExposition({f}), prometheus::TextSerializer().Serialize({f}));
}

TEST(ExpositionTest, AcceptsGzip) {
  EXPECT_TRUE(AcceptsGzip("gzip"));
  EXPECT_TRUE(AcceptsGzip("GZip"));
  EXPECT_TRUE(AcceptsGzip("deflate, gzip;q=0.5"));
  EXPECT_TRUE(AcceptsGzip("br, *"));
  EXPECT_TRUE(AcceptsGzip(" gzip ; q=1"));
  EXPECT_FALSE(AcceptsGzip(""));
  EXPECT_FALSE(AcceptsGzip("identity"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=0"));
  EXPECT_FALSE(AcceptsGzip("gzip; q=0.000, deflate"));
  EXPECT_FALSE(AcceptsGzip("x-gzip2"));
}

TEST(ExpositionTest, GzipRoundTrips) {
  std::string text = WriteTextExposition(Awkward());
  for (int i = 0; i < 6; ++i) text += text;  // Beyond one deflate block.
  auto gz = GzipCompress(text);
  ASSERT_TRUE(gz.ok()) << gz.error().message;
  ASSERT_GT(gz->size(), 10u);
  EXPECT_EQ(static_cast<unsigned char>((*gz)[0]), 0x1f);  // gzip magic.
  EXPECT_EQ(static_cast<unsigned char>((*gz)[1]), 0x8b);
  EXPECT_LT(gz->size(), text.size() / 4);
  z_stream zs{};
  ASSERT_EQ(inflateInit2(&zs, 16 + MAX_WBITS), Z_OK);
  std::string back(text.size() + 16, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(gz->data());
  zs.avail_in = static_cast<uInt>(gz->size());
  zs.next_out = reinterpret_cast<Bytef*>(back.data());
  zs.avail_out = static_cast<uInt>(back.size());
  EXPECT_EQ(inflate(&zs, Z_FINISH), Z_STREAM_END);
  back.resize(zs.total_out);
  inflateEnd(&zs);
  EXPECT_EQ(back, text);
}

}  // namespace
}  // namespace fabric
