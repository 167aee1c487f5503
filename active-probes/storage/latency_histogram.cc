#include "active-probes/storage/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace fabric::storage {
namespace {

constexpr int kSubBits = 7;
constexpr uint64_t kSub = 1ull << kSubBits;
constexpr size_t kBuckets = kSub + (64 - kSubBits) * kSub;

}  // namespace

LatencyHistogram::LatencyHistogram() : buckets_(kBuckets, 0) {}

size_t LatencyHistogram::BucketOf(uint64_t nanos) {
  if (nanos < kSub) return nanos;
  int exponent = std::bit_width(nanos) - 1;  // >= kSubBits
  uint64_t mantissa = (nanos >> (exponent - kSubBits)) - kSub;
  return kSub + static_cast<size_t>(exponent - kSubBits) * kSub + mantissa;
}

uint64_t LatencyHistogram::BucketMidpoint(size_t bucket) {
  if (bucket < kSub) return bucket;
  size_t octave = (bucket - kSub) / kSub;
  uint64_t mantissa = (bucket - kSub) % kSub;
  int shift = static_cast<int>(octave);
  uint64_t low = (kSub + mantissa) << shift;
  uint64_t width = 1ull << shift;
  return low + width / 2;
}

void LatencyHistogram::Record(uint64_t nanos) {
  ++buckets_[BucketOf(nanos)];
  ++count_;
  sum_ += nanos;
  max_ = std::max(max_, nanos);
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  for (size_t i = 0; i < kBuckets; ++i) buckets_[i] += other.buckets_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  max_ = std::max(max_, other.max_);
}

uint64_t LatencyHistogram::Quantile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  auto rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
  rank = std::max<uint64_t>(rank, 1);
  if (rank >= count_) return max_;
  uint64_t seen = 0;
  for (size_t i = 0; i < kBuckets; ++i) {
    seen += buckets_[i];
    if (seen >= rank) return std::min(BucketMidpoint(i), max_);
  }
  return max_;
}

}  // namespace fabric::storage
