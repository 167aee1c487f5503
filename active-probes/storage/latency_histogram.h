// LatencyHistogram: per-I/O latencies in log-linear buckets (128 per power of
// two, under 0.8% relative error), so a long probe at a million IOPS keeps a
// fixed 60 KiB instead of one entry per I/O. Jobs keep one each and merge.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fabric::storage {

class LatencyHistogram {
 public:
  LatencyHistogram();

  void Record(uint64_t nanos);
  void Merge(const LatencyHistogram& other);

  uint64_t count() const { return count_; }
  uint64_t max() const { return max_; }
  double mean() const { return count_ ? static_cast<double>(sum_) / count_ : 0; }
  // The value at quantile q in [0, 1] (nearest rank), in nanoseconds.
  uint64_t Quantile(double q) const;

  static size_t BucketOf(uint64_t nanos);
  static uint64_t BucketMidpoint(size_t bucket);

 private:
  std::vector<uint64_t> buckets_;
  uint64_t count_ = 0;
  uint64_t sum_ = 0;
  uint64_t max_ = 0;
};

}  // namespace fabric::storage
