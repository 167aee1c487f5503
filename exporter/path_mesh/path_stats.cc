#include "exporter/path_mesh/path_stats.h"

#include <algorithm>

namespace fabric {

PathStats::PathStats(const std::vector<std::string>& targets) {
  for (const auto& target : targets) counts_[target];
}

void PathStats::Record(const std::string& target, std::optional<double> rtt_seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = counts_.find(target);
  if (it == counts_.end()) return;
  PathCounts& c = it->second;
  ++c.probes;
  if (!rtt_seconds) {
    ++c.lost;
    return;
  }
  const double rtt = std::max(0.0, *rtt_seconds);
  // Prometheus buckets are "less than or equal": the first bound >= rtt.
  const auto bound = std::lower_bound(kPathRttBuckets.begin(), kPathRttBuckets.end(), rtt);
  ++c.buckets[static_cast<size_t>(bound - kPathRttBuckets.begin())];
  c.rtt_sum_seconds += rtt;
}

PathCounts PathStats::Counts(const std::string& target) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = counts_.find(target);
  return it == counts_.end() ? PathCounts{} : it->second;
}

void PathStats::Collect(MetricSink& sink) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [target, c] : counts_) {
    std::vector<uint64_t> cumulative;
    uint64_t running = 0;
    for (size_t i = 0; i < kPathRttBuckets.size(); ++i) {
      running += c.buckets[i];
      cumulative.push_back(running);
    }
    sink.Histogram(kPathRttFamily,
                   "Round-trip time of the latency mesh's answered probes (TCP connect to the "
                   "peer's responder port: SYN out, SYN-ACK or RST back), per mesh peer.",
                   {{"target", target}}, kPathRttBuckets, cumulative, c.answered(),
                   c.rtt_sum_seconds);
    sink.Counter(kPathProbesFamily, "Latency mesh probes sent to the peer.", {{"target", target}},
                 static_cast<double>(c.probes));
    sink.Counter(kPathLostFamily,
                 "Latency mesh probes to the peer with no answer within the mesh's timeout "
                 "(lost SYN or SYN-ACK, or the path unreachable).",
                 {{"target", target}}, static_cast<double>(c.lost));
  }
}

}  // namespace fabric
