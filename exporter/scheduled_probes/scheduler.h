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

#include "exporter/scheduled_probes/timetable.h"

namespace fabric {

// Time source; tests substitute a fake one.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual SteadyTime Now() = 0;
  // Waits until `when` or until Interrupt(); returns false if interrupted.
  virtual bool WaitUntil(SteadyTime when) = 0;
  virtual void Interrupt() = 0;
};

class RealClock : public Clock {
 public:
  SteadyTime Now() override { return std::chrono::steady_clock::now(); }
  bool WaitUntil(SteadyTime when) override;
  void Interrupt() override;

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool interrupted_ = false;
};

// Handed to a running probe: it stops early when cancelled (shutdown) or past
// its deadline (the per-probe timeout).
class CancelToken {
 public:
  CancelToken(Clock& clock, SteadyTime deadline) : clock_(clock), deadline_(deadline) {}
  bool ShouldStop() const { return cancelled_.load() || clock_.Now() >= deadline_; }
  bool cancelled() const { return cancelled_.load(); }
  // For probes that take a stop flag (they then stop on cancellation only;
  // the deadline is theirs to respect through their own duration).
  const std::atomic<bool>* cancel_flag() const { return &cancelled_; }
  SteadyTime deadline() const { return deadline_; }
  void Cancel() { cancelled_ = true; }

 private:
  Clock& clock_;
  SteadyTime deadline_;
  std::atomic<bool> cancelled_{false};
};

// kIdle: nothing to do this time (e.g. the probe plan gives this node no
// peer to probe in this round).
enum class ProbeOutcome { kSuccess, kFailure, kBusy, kIdle };

struct ProbeTask {
  std::string probe;   // The rung (tcp_multi, storage_read, ...), a metric label.
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
  Scheduler(std::vector<ProbeTask> tasks, Clock& clock, Seconds max_splay, uint64_t seed);
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
  Clock& clock_;
  mutable std::mutex timetable_mutex_;  // Held briefly, never across a probe run.
  Timetable timetable_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;  // Guards stats_ and current_.
  std::map<std::string, ProbeTaskStats> stats_;
  CancelToken* current_ = nullptr;
};

}  // namespace fabric
