// MetricSink: what collectors write samples into. It groups samples into
// families by name and returns them sorted by name and label set, so the
// exposition is byte-stable from scrape to scrape.
#pragma once

#include <prometheus/metric_family.h>

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fabric {

using LabelPairs = std::vector<std::pair<std::string, std::string>>;

class MetricSink {
 public:
  void Counter(std::string_view name, std::string_view help, LabelPairs labels, double value);
  void Gauge(std::string_view name, std::string_view help, LabelPairs labels, double value);
  // An `_info` series: constant 1 carrying descriptive labels.
  void Info(std::string_view name, std::string_view help, LabelPairs labels);
  // A histogram: `cumulative[i]` observations at most `bounds[i]` (ascending),
  // `count` in all (the +Inf bucket) summing to `sum`.
  void Histogram(std::string_view name, std::string_view help, LabelPairs labels,
                 std::span<const double> bounds, std::span<const uint64_t> cumulative,
                 uint64_t count, double sum);

  // Moves every family of `other` into this sink.
  void MergeFrom(MetricSink&& other);

  bool empty() const { return families_.empty(); }
  size_t sample_count() const;

  // Families sorted by name; samples within each sorted by labels.
  std::vector<prometheus::MetricFamily> TakeSorted();

 private:
  prometheus::MetricFamily& FamilyFor(std::string_view name, std::string_view help,
                                      prometheus::MetricType type);

  std::map<std::string, prometheus::MetricFamily, std::less<>> families_;
};

}  // namespace fabric
