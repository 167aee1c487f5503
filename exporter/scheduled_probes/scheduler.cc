#include "exporter/scheduled_probes/scheduler.h"

#include <exception>

#include "common/log.h"
#include "common/thread_name.h"

namespace fabric {
namespace {

std::vector<ProbeTiming> Timings(const std::vector<ProbeTask>& tasks) {
  std::vector<ProbeTiming> timings;
  for (const auto& task : tasks) timings.push_back(task.timing);
  return timings;
}

}  // namespace

bool RealClock::WaitUntil(SteadyTime when) {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait_until(lock, when, [this] { return interrupted_; });
  return !interrupted_;
}

void RealClock::Interrupt() {
  std::lock_guard<std::mutex> lock(mutex_);
  interrupted_ = true;
  cv_.notify_all();
}

Scheduler::Scheduler(std::vector<ProbeTask> tasks, SchedulerClock& clock, Seconds max_splay,
                     uint64_t seed)
    : tasks_(std::move(tasks)),
      clock_(clock),
      timetable_(Timings(tasks_), clock.Now(), max_splay, seed) {
  for (const auto& task : tasks_) {
    auto& stats = stats_[task.name()];
    stats.probe = task.probe;
    stats.target = task.target;
  }
}

Scheduler::~Scheduler() { Stop(); }

void Scheduler::Start() {
  if (tasks_.empty()) return;
  thread_ = std::thread([this] {
    NameThisThread("probe-sched");
    while (!stopping_.load()) {
      RunDue();
      if (stopping_.load() || !clock_.WaitUntil(NextDue())) break;
    }
  });
}

void Scheduler::Stop() {
  stopping_ = true;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (current_ != nullptr) current_->Cancel();
  }
  clock_.Interrupt();
  if (thread_.joinable()) thread_.join();
}

SteadyTime Scheduler::NextDue() const {
  std::lock_guard<std::mutex> lock(timetable_mutex_);
  return timetable_.DueTime(timetable_.NextIndex());
}

size_t Scheduler::RunDue() {
  size_t started = 0;
  while (!tasks_.empty() && !stopping_.load()) {
    size_t index;
    {
      std::lock_guard<std::mutex> lock(timetable_mutex_);
      index = timetable_.NextIndex();
      if (timetable_.DueTime(index) > clock_.Now()) break;
    }
    RunOne(index);
    ++started;
  }
  return started;
}

void Scheduler::RunOne(size_t index) {
  ProbeTask& task = tasks_[index];
  if (task.skip_reason) {
    if (auto reason = task.skip_reason()) {
      log::Info("probe skipped", {{"probe", task.name()}, {"reason", *reason}});
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ++stats_[task.name()].skips[*reason];
      }
      std::lock_guard<std::mutex> lock(timetable_mutex_);
      timetable_.Completed(index, clock_.Now());
      return;
    }
  }
  CancelToken token(clock_,
                    clock_.Now() + std::chrono::duration_cast<SteadyTime::duration>(task.timeout));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    current_ = &token;
  }
  ProbeOutcome outcome = ProbeOutcome::kFailure;
  try {
    outcome = task.run(token);
  } catch (const std::exception& e) {
    log::Error("probe threw", {{"probe", task.name()}, {"err", e.what()}});
  }
  SteadyTime now = clock_.Now();
  std::string label = outcome == ProbeOutcome::kSuccess ? "success"
                      : outcome == ProbeOutcome::kBusy  ? "busy"
                      : outcome == ProbeOutcome::kIdle  ? "idle"
                      : now >= token.deadline()         ? "timeout"
                                                        : "failure";
  {
    std::lock_guard<std::mutex> lock(mutex_);
    current_ = nullptr;
    ++stats_[task.name()].runs[label];
  }
  std::lock_guard<std::mutex> lock(timetable_mutex_);
  if (outcome == ProbeOutcome::kBusy) {
    if (!timetable_.Busy(index, now)) {
      log::Warn("peer stayed busy; waiting for the next regular run", {{"probe", task.name()}});
    }
  } else {
    timetable_.Completed(index, now);
  }
}

std::map<std::string, ProbeTaskStats> Scheduler::Stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace fabric
