#include "exporter/scheduled_probes/probe_budget.h"

#include <algorithm>
#include <vector>

namespace fabric {

void ProbeBudget::Spent(double end, double seconds, ProbeRole role, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  ProbeSpending& total = role == ProbeRole::kRequester ? requester_ : responder_;
  total.bytes += bytes;
  if (seconds <= 0) return;
  total.seconds += seconds;
  spent_.push_back({end - seconds, end});
  // The responder and the scheduler report from two threads: keep the order
  // of the ends so the pruning below stays a prefix.
  std::sort(spent_.begin(), spent_.end(),
            [](const Interval& a, const Interval& b) { return a.end < b.end; });
  // What ended more than two windows ago can no longer count (a clock stepped
  // back keeps one extra window).
  const double horizon = end - 2 * kWindowSeconds;
  while (!spent_.empty() && spent_.front().end < horizon) spent_.pop_front();
}

void ProbeBudget::SpentRdma(ProbeRole role, const std::string& device, uint32_t port,
                            uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  ProbeSpending& total = role == ProbeRole::kRequester ? requester_ : responder_;
  total.rdma_bytes[{device, port}] += bytes;
}

double ProbeBudget::BusySeconds(double now) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const double from = now - kWindowSeconds;
  // The union of the intervals inside the window: a loopback run is this
  // node's requester and responder at once, one busy second, not two.
  std::vector<Interval> inside;
  for (const Interval& i : spent_) {
    const double start = std::max(i.start, from);
    const double end = std::min(i.end, now);
    if (end > start) inside.push_back({start, end});
  }
  std::sort(inside.begin(), inside.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  double busy = 0, covered = from;
  for (const Interval& i : inside) {
    const double start = std::max(i.start, covered);
    if (i.end > start) busy += i.end - start;
    covered = std::max(covered, i.end);
  }
  return busy;
}

ProbeSpending ProbeBudget::Total(ProbeRole role) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return role == ProbeRole::kRequester ? requester_ : responder_;
}

bool ProbeBudget::Allows(double now, double seconds) const {
  return BusySeconds(now) + seconds <= ratio_ * kWindowSeconds;
}

void ProbeBudget::Adopt(const ProbeBudget& previous) {
  std::scoped_lock lock(mutex_, previous.mutex_);
  spent_ = previous.spent_;
  // The totals are counters: a reload must not reset them.
  requester_ = previous.requester_;
  responder_ = previous.responder_;
}

}  // namespace fabric
