#include "active-probes/storage/storage_report.h"

#include <gtest/gtest.h>

#include "active-probes/storage/verdict.h"

namespace fabric::storage {
namespace {

StorageProbeResult Base(uint32_t jobs, uint32_t depth, double latency, double bytes_per_second) {
  StorageProbeResult r;
  r.jobs = jobs;
  r.queue_depth = depth;
  r.block_size = 1 << 20;
  r.ios = 1000;
  r.latency.mean = latency;
  r.latency.p50 = latency;
  r.bytes_per_second = bytes_per_second;
  return r;
}

TEST(Verdict, SingleInFlightIsLatencyBound) {
  // Shape 12: one 1 MB write at a time, 75 ms each, 14 MB/s.
  StorageProbeResult r = Base(1, 1, 0.075, (1 << 20) / 0.075);
  ApplyVerdict(r);
  EXPECT_TRUE(r.latency_bound);
  EXPECT_NEAR(r.littles_law_ratio, 1.0, 1e-9);
  EXPECT_NE(r.verdict.find("latency-bound"), std::string::npos) << r.verdict;
}

TEST(Verdict, QueueingLatencyIsBandwidthBound) {
  StorageProbeResult r = Base(1, 32, 0.032, 32.0 * (1 << 20) / 0.032);
  r.unloaded_latency_p50 = 0.001;  // Latency grew 32x with depth: queueing.
  ApplyVerdict(r);
  EXPECT_FALSE(r.latency_bound);
  EXPECT_NEAR(r.queueing_factor, 32, 1e-9);
  EXPECT_NE(r.verdict.find("bandwidth-bound"), std::string::npos) << r.verdict;
}

TEST(Verdict, FlatLatencyUnderDepthIsLatencyBound) {
  StorageProbeResult r = Base(4, 16, 0.075, 64.0 * (1 << 20) / 0.075);
  r.unloaded_latency_p50 = 0.070;
  ApplyVerdict(r);
  EXPECT_TRUE(r.latency_bound);
  EXPECT_NE(r.verdict.find("unused parallelism"), std::string::npos) << r.verdict;
}

TEST(Verdict, HalfEmptyQueueIsSubmissionBound) {
  StorageProbeResult r = Base(1, 32, 0.010, 10.0 * (1 << 20) / 0.010);
  r.unloaded_latency_p50 = 0.009;
  ApplyVerdict(r);
  EXPECT_FALSE(r.latency_bound);
  EXPECT_NE(r.verdict.find("submission-bound"), std::string::npos) << r.verdict;
}

TEST(Verdict, CpuSaturationAndFallbacksAreNamed) {
  StorageProbeResult r = Base(1, 1, 0.001, (1 << 20) / 0.001);
  r.cpu_saturated = true;
  r.max_job_cpu_fraction = 0.97;
  r.engine_note = "io_uring support was not built";
  ApplyVerdict(r);
  EXPECT_NE(r.verdict.find("cpu-bound harness"), std::string::npos) << r.verdict;
  EXPECT_NE(r.verdict.find("engine fallback: io_uring support was not built"), std::string::npos);
}

TEST(Report, JsonHasEveryFieldAndEscapes) {
  StorageProbeResult r = Base(1, 1, 0.001, 1e9);
  r.target = "/data/\"x\"";
  r.bytes = 3'000'000'000ull;
  r.filesystem.type = "ext4";
  ApplyVerdict(r);
  std::string json = FormatJson(r);
  for (const char* key :
       {"\"bytes_per_second\":", "\"iops\":", "\"latency_seconds\":{\"p50\":", "\"p99.9\":",
        "\"cpu_seconds_per_gb\":", "\"filesystem\":{\"type\":\"ext4\"", "\"latency_bound\":true",
        "\"engine_fallback\":\"\"", "\"direct\":true", "\"bytes\":3000000000,"}) {
    EXPECT_NE(json.find(key), std::string::npos) << key << " in " << json;
  }
  EXPECT_NE(json.find("\"/data/\\\"x\\\"\""), std::string::npos);
  std::string human = FormatHuman(r);
  EXPECT_NE(human.find("latency_bound          yes"), std::string::npos) << human;
}

TEST(Units, Bytes) {
  EXPECT_EQ(*ParseBytes("4096"), 4096u);
  EXPECT_EQ(*ParseBytes("4k"), 4096u);
  EXPECT_EQ(*ParseBytes("1MiB"), 1u << 20);
  EXPECT_EQ(*ParseBytes("256M"), 256u << 20);
  EXPECT_EQ(*ParseBytes("2G"), 2ull << 30);
  EXPECT_FALSE(ParseBytes("").ok());
  EXPECT_FALSE(ParseBytes("1.5M").ok());
  EXPECT_FALSE(ParseBytes("12q").ok());
  EXPECT_FALSE(ParseBytes("99999999999T").ok());
}

TEST(Units, Seconds) {
  EXPECT_DOUBLE_EQ(*ParseSeconds("3"), 3);
  EXPECT_DOUBLE_EQ(*ParseSeconds("2.5s"), 2.5);
  EXPECT_DOUBLE_EQ(*ParseSeconds("500ms"), 0.5);
  EXPECT_DOUBLE_EQ(*ParseSeconds("1m"), 60);
  EXPECT_FALSE(ParseSeconds("-1s").ok());
  EXPECT_FALSE(ParseSeconds("fast").ok());
}

}  // namespace
}  // namespace fabric::storage
