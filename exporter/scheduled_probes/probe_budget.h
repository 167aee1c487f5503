// ProbeBudget: the share of each hour this node spends on probes, as requester
// and as responder (probes.budget, issue 21/22). The rungs of the plan always
// run; comparison runs (comparison_rotation.h) run only while the last hour's
// busy time plus the run's expected time stays inside the budget. Pure over
// the wall time it is given, so tests drive it with a fake clock.
#pragma once

#include <deque>
#include <mutex>

namespace fabric {

class ProbeBudget {
 public:
  static constexpr double kWindowSeconds = 3600;

  // `ratio`: the budgeted share of the window, in [0, 1].
  explicit ProbeBudget(double ratio) : ratio_(ratio) {}

  double ratio() const { return ratio_; }
  // A probe (run here, or served by this node's responder) that ended at Unix
  // time `end` after `seconds`. Thread-safe: the responder reports from its
  // session thread.
  void Spent(double end, double seconds);
  // Seconds of the window ending at `now` that probes occupied: the union of
  // the runs' parts inside the window (overlapping runs count once).
  double BusySeconds(double now) const;
  double BusyRatio(double now) const { return BusySeconds(now) / kWindowSeconds; }
  // Whether a run of `seconds` starting at `now` keeps the last hour inside
  // the budget.
  bool Allows(double now, double seconds) const;
  // Takes `previous`'s runs (a config reload: the hour spent so far still counts).
  void Adopt(const ProbeBudget& previous);

 private:
  struct Interval {
    double start;
    double end;
  };
  double ratio_;
  mutable std::mutex mutex_;
  std::deque<Interval> spent_;  // In order of their end.
};

}  // namespace fabric
