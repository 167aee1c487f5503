// The mesh's accounting per target: probes sent, probes lost, and the
// round-trip times of the answered ones as a histogram with fixed buckets.
// Shared between the mesh's thread (Record) and the scraper (Collect).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "exporter/metrics/metric_sink.h"

namespace fabric {

// Upper bounds in seconds, for round trips from a few microseconds (two hosts
// on one switch, kernel to kernel) to 100 ms (a congested or long path);
// about three per decade so a doubling moves a path's median by a bucket.
inline constexpr std::array<double, 14> kPathRttBuckets = {
    5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2, 5e-2, 0.1};

inline constexpr std::string_view kPathRttFamily = "fabric_path_rtt_seconds";
inline constexpr std::string_view kPathProbesFamily = "fabric_path_probes_total";
inline constexpr std::string_view kPathLostFamily = "fabric_path_lost_total";

// The series names the mesh exposes (the histogram's as PromQL sees them),
// for the probe catalogue the rule and dashboard lints read.
inline constexpr std::string_view kPathMeshSeries[] = {
    "fabric_path_rtt_seconds_bucket", "fabric_path_rtt_seconds_sum",
    "fabric_path_rtt_seconds_count", kPathProbesFamily, kPathLostFamily};

struct PathCounts {
  uint64_t probes = 0;
  uint64_t lost = 0;
  // Answered probes per bucket (not cumulative); the last slot is above the
  // largest bound (+Inf).
  std::array<uint64_t, kPathRttBuckets.size() + 1> buckets{};
  double rtt_sum_seconds = 0;
  uint64_t answered() const { return probes - lost; }
};

class PathStats {
 public:
  // Every target's series exist from the start, at zero, so rate() and
  // increase() see a path's first loss.
  explicit PathStats(const std::vector<std::string>& targets);

  // One probe of `target`: its round trip, or nullopt when it was lost. A
  // target not given to the constructor is ignored (labels stay bounded).
  void Record(const std::string& target, std::optional<double> rtt_seconds);

  PathCounts Counts(const std::string& target) const;
  // fabric_path_rtt_seconds{target} (histogram), fabric_path_probes_total and
  // fabric_path_lost_total{target}.
  void Collect(MetricSink& sink) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, PathCounts> counts_;  // guarded by mu_
};

}  // namespace fabric
