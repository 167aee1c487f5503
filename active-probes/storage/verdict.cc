#include "active-probes/storage/verdict.h"

#include <cstdio>
#include <string>

namespace fabric::storage {
namespace {

// Little's law holds within this band when the probe kept its queue full.
constexpr double kLittleLow = 0.85;
constexpr double kLittleHigh = 1.15;
// Latency under load below this multiple of the depth-1 latency: the device
// was not queueing, so it had unused parallelism.
constexpr double kQueueingLimit = 2.0;

std::string Format(const char* fmt, double a, double b = 0, double c = 0, double d = 0) {
  char buf[256];
  std::snprintf(buf, sizeof(buf), fmt, a, b, c, d);
  return buf;
}

}  // namespace

void ApplyVerdict(StorageProbeResult& r) {
  const double in_flight = static_cast<double>(r.jobs) * r.queue_depth;
  const double block_mb = r.block_size / 1e6;
  r.littles_law_ratio = 0;
  r.queueing_factor = 0;
  r.latency_bound = false;
  if (r.latency.mean > 0) {
    double predicted = in_flight * r.block_size / r.latency.mean;
    r.littles_law_ratio = r.bytes_per_second / predicted;
  }
  if (r.unloaded_latency_p50 > 0 && r.latency.p50 > 0) {
    r.queueing_factor = r.latency.p50 / r.unloaded_latency_p50;
  }
  const bool little = r.littles_law_ratio >= kLittleLow && r.littles_law_ratio <= kLittleHigh;
  const bool not_queueing =
      in_flight <= 1 || (r.queueing_factor > 0 && r.queueing_factor < kQueueingLimit);
  r.latency_bound = little && not_queueing;

  std::string equation = Format(
      "%.0f in flight x %.3g MB / %.3g ms = %.4g MB/s", in_flight, block_mb, r.latency.mean * 1e3,
      r.littles_law_ratio > 0 ? r.bytes_per_second / 1e6 / r.littles_law_ratio : 0);
  if (r.ios == 0) {
    r.verdict = "no I/O completed inside the window";
  } else if (r.cpu_saturated) {
    r.verdict = Format(
        "cpu-bound harness: a probe thread used %.0f%% of a core; this is the "
        "probe's limit, not the storage's",
        r.max_job_cpu_fraction * 100);
  } else if (r.latency_bound) {
    r.verdict = "latency-bound: " + equation;
    if (in_flight <= 1) {
      r.verdict +=
          "; only one I/O in flight, so more jobs or a deeper queue would raise "
          "throughput";
    } else {
      r.verdict += Format(
          "; latency is only %.2gx the depth-1 latency, so the storage has "
          "unused parallelism: more jobs or depth would raise throughput",
          r.queueing_factor);
    }
  } else if (r.littles_law_ratio > 0 && r.littles_law_ratio < kLittleLow) {
    r.verdict = Format(
        "submission-bound: on average %.1f of %.0f I/Os were in flight; the "
        "probe did not keep its queue full",
        r.littles_law_ratio * in_flight, in_flight);
  } else if (r.queueing_factor > 0) {
    r.verdict = Format(
        "bandwidth-bound: latency grew %.3gx from depth 1 to %.0f in flight "
        "(queueing), so the storage or a throttle is saturated; more "
        "parallelism will not help",
        r.queueing_factor, in_flight);
  } else {
    r.verdict = "queue kept full (" + equation +
                "); run with calibration to tell latency-bound from bandwidth-bound";
  }
  if (!r.engine_note.empty()) r.verdict += " [engine fallback: " + r.engine_note + "]";
  if (!r.direct_note.empty()) r.verdict += " [not direct I/O: " + r.direct_note + "]";
}

}  // namespace fabric::storage
