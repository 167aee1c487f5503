// ProbeBudget: the share of each hour this node spends on probes, as requester
// and as responder (probes.budget, issue 21/22). The rungs of the plan always
// run; comparison runs (comparison_rotation.h) run only while the last hour's
// busy time plus the run's expected time stays inside the budget. Pure over
// the wall time it is given, so tests drive it with a fake clock.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace fabric {

// Which end of a probe this node was.
enum class ProbeRole { kRequester, kResponder };

// What probing has cost this node in one role since it started.
struct ProbeSpending {
  double seconds = 0;
  uint64_t bytes = 0;  // Bytes its TCP data streams moved.
  // Bytes the RDMA probe's queue pairs moved, by local RDMA device and port:
  // the probe's share of that port's byte counters.
  std::map<std::pair<std::string, uint32_t>, uint64_t> rdma_bytes;
};

class ProbeBudget {
 public:
  static constexpr double kWindowSeconds = 3600;

  // `ratio`: the budgeted share of the window, in [0, 1].
  explicit ProbeBudget(double ratio) : ratio_(ratio) {}

  double ratio() const { return ratio_; }
  // A probe (run here, or served by this node's responder) that ended at Unix
  // time `end` after `seconds`, moving `bytes`. Thread-safe: the responder
  // reports from its session thread.
  void Spent(double end, double seconds, ProbeRole role, uint64_t bytes);
  // RDMA bytes a probe moved through local port `port` of `device`.
  void SpentRdma(ProbeRole role, const std::string& device, uint32_t port, uint64_t bytes);
  // Everything spent in `role` since start.
  ProbeSpending Total(ProbeRole role) const;
  // Seconds of the window ending at `now` that probes occupied: the union of
  // the runs' parts inside the window (overlapping runs count once).
  double BusySeconds(double now) const;
  double BusyRatio(double now) const { return BusySeconds(now) / kWindowSeconds; }
  // Whether a run of `seconds` starting at `now` keeps the last hour inside
  // the budget.
  bool Allows(double now, double seconds) const;
  // Takes `previous`'s runs and totals (a config reload: the hour spent so far still counts,
  // and the published totals go on from where they were).
  void Adopt(const ProbeBudget& previous);

 private:
  struct Interval {
    double start;
    double end;
  };
  double ratio_;
  mutable std::mutex mutex_;
  std::deque<Interval> spent_;  // In order of their end.
  ProbeSpending requester_;
  ProbeSpending responder_;
};

}  // namespace fabric
