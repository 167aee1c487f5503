// Scheduler: runs the node's active probes one at a time (they share CPU, NIC
// and PCIe) on the Timetable's schedule, never on a scrape. A probe may be
// skipped (e.g. the fabric interface is busy with real traffic, so a probe
// would both disturb it and measure contaminated numbers), may answer BUSY
// (the peer's responder is serving someone else: back off and retry), and
// is cancelled cleanly on shutdown.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/stop_token.h"
#include "exporter/scheduled_probes/timetable.h"

namespace fabric {

// The scheduler's time source: the clock probes read, and a wait the
// scheduler's thread sleeps in between runs. Tests substitute a fake one.
class SchedulerClock : public Clock {
 public:
  // Waits until `when` or until Interrupt(); returns false if interrupted.
  virtual bool WaitUntil(SteadyTime when) = 0;
  virtual void Interrupt() = 0;
};

class RealClock : public SchedulerClock {
 public:
  SteadyTime Now() override { return system_.Now(); }
  double WallSeconds() override { return system_.WallSeconds(); }
  bool WaitUntil(SteadyTime when) override;
  void Interrupt() override;

 private:
  SystemClock system_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool interrupted_ = false;
};

// Handed to a running probe: it stops early when cancelled (shutdown) or past
// its deadline (the per-probe timeout).
class CancelToken {
 public:
  CancelToken(SchedulerClock& clock, SteadyTime deadline) : clock_(clock), deadline_(deadline) {}
  bool ShouldStop() const { return cancelled() || clock_.Now() >= deadline_; }
  bool cancelled() const { return cancelled_.stop_requested(); }
  // For the probe's context (the probe then stops on cancellation only; the
  // deadline is its to respect through its own duration).
  StopToken stop_token() const { return cancelled_.token(); }
  SteadyTime deadline() const { return deadline_; }
  void Cancel() { cancelled_.RequestStop(); }

 private:
  SchedulerClock& clock_;
  SteadyTime deadline_;
  StopSource cancelled_;
};

// kIdle: nothing to do this time (e.g. the probe plan gives this node no
// peer to probe in this round).
enum class ProbeOutcome { kSuccess, kFailure, kBusy, kIdle };

struct ProbeTask {
  // What runs (a rung's label, or a group: "storage" runs both storage rungs),
  // the `probe` label of fabric_probe_runs_total.
  std::string probe;
  std::string target;  // The peer or directory, a metric label.
  std::string name() const { return probe + "/" + target; }
  ProbeTiming timing;
  Seconds timeout{120};
  // A reason to skip this run, or nullopt to run it.
  std::function<std::optional<std::string>()> skip_reason;
  // Runs the probe and records its detailed result itself.
  std::function<ProbeOutcome(const CancelToken&)> run;
};

// Counters per task, for the exporter's own metrics.
struct ProbeTaskStats {
  std::string probe;
  std::string target;
  std::map<std::string, uint64_t> runs;   // By outcome: success, failure, busy, timeout, idle.
  std::map<std::string, uint64_t> skips;  // By reason.
};

class Scheduler {
 public:
  Scheduler(std::vector<ProbeTask> tasks, SchedulerClock& clock, Seconds max_splay, uint64_t seed);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Runs the schedule on a thread until Stop().
  void Start();
  // Cancels a running probe, wakes the thread and joins it.
  void Stop();

  // Runs, in order, every probe due at the clock's current time; returns how
  // many it started. The thread's loop; tests call it with a fake clock.
  size_t RunDue();

  std::map<std::string, ProbeTaskStats> Stats() const;
  SteadyTime NextDue() const;

 private:
  void RunOne(size_t index);

  std::vector<ProbeTask> tasks_;
  SchedulerClock& clock_;
  mutable std::mutex timetable_mutex_;  // Held briefly, never across a probe run.
  Timetable timetable_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;  // Guards stats_ and current_.
  std::map<std::string, ProbeTaskStats> stats_;
  CancelToken* current_ = nullptr;
};

}  // namespace fabric
