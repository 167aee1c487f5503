#include "exporter/metrics/metric_sink.h"

#include <algorithm>
#include <cassert>
#include <stdexcept>

namespace fabric {
namespace {

prometheus::ClientMetric MakeMetric(LabelPairs labels) {
  prometheus::ClientMetric metric;
  metric.label.reserve(labels.size());
  for (auto& [name, value] : labels) {
    metric.label.push_back({std::move(name), std::move(value)});
  }
  std::sort(metric.label.begin(), metric.label.end());
  return metric;
}

}  // namespace

prometheus::MetricFamily& MetricSink::FamilyFor(std::string_view name, std::string_view help,
                                                prometheus::MetricType type) {
  auto it = families_.find(name);
  if (it == families_.end()) {
    prometheus::MetricFamily family;
    family.name = std::string(name);
    family.help = std::string(help);
    family.type = type;
    it = families_.emplace(family.name, std::move(family)).first;
  } else if (it->second.type != type) {
    // Two collectors disagreeing on a family's type is a programming error
    // that would make the exposition invalid; fail loudly in tests.
    throw std::logic_error("metric family " + std::string(name) + " registered with two types");
  }
  return it->second;
}

void MetricSink::Counter(std::string_view name, std::string_view help, LabelPairs labels,
                         double value) {
  auto metric = MakeMetric(std::move(labels));
  metric.counter.value = value;
  FamilyFor(name, help, prometheus::MetricType::Counter).metric.push_back(std::move(metric));
}

void MetricSink::Gauge(std::string_view name, std::string_view help, LabelPairs labels,
                       double value) {
  auto metric = MakeMetric(std::move(labels));
  metric.gauge.value = value;
  FamilyFor(name, help, prometheus::MetricType::Gauge).metric.push_back(std::move(metric));
}

void MetricSink::Info(std::string_view name, std::string_view help, LabelPairs labels) {
  Gauge(name, help, std::move(labels), 1.0);
}

void MetricSink::Histogram(std::string_view name, std::string_view help, LabelPairs labels,
                           std::span<const double> bounds, std::span<const uint64_t> cumulative,
                           uint64_t count, double sum) {
  assert(bounds.size() == cumulative.size());
  auto metric = MakeMetric(std::move(labels));
  metric.histogram.sample_count = count;
  metric.histogram.sample_sum = sum;
  for (size_t i = 0; i < bounds.size(); ++i) {
    metric.histogram.bucket.push_back({cumulative[i], bounds[i]});
  }
  FamilyFor(name, help, prometheus::MetricType::Histogram).metric.push_back(std::move(metric));
}

void MetricSink::MergeFrom(MetricSink&& other) {
  for (auto& [name, family] : other.families_) {
    auto& mine = FamilyFor(name, family.help, family.type);
    std::move(family.metric.begin(), family.metric.end(), std::back_inserter(mine.metric));
  }
  other.families_.clear();
}

size_t MetricSink::sample_count() const {
  size_t n = 0;
  for (const auto& [name, family] : families_) n += family.metric.size();
  return n;
}

std::vector<prometheus::MetricFamily> MetricSink::TakeSorted() {
  std::vector<prometheus::MetricFamily> out;
  out.reserve(families_.size());
  for (auto& [name, family] : families_) {
    auto by_labels = [](const prometheus::ClientMetric& a, const prometheus::ClientMetric& b) {
      return a.label < b.label;
    };
    // Collectors mostly emit in order already (directory listings are
    // sorted); checking is linear, the merge sort is not.
    if (!std::is_sorted(family.metric.begin(), family.metric.end(), by_labels)) {
      std::stable_sort(family.metric.begin(), family.metric.end(), by_labels);
    }
    out.push_back(std::move(family));
  }
  families_.clear();
  return out;
}

}  // namespace fabric
