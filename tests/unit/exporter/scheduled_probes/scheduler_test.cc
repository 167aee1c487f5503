#include "exporter/scheduled_probes/scheduler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace fabric {
namespace {

using std::chrono::seconds;

// A clock tests move by hand; waiting jumps straight to the deadline.
class FakeClock : public SchedulerClock {
 public:
  SteadyTime Now() override { return now_; }
  double WallSeconds() override { return 1.7e9; }
  bool WaitUntil(SteadyTime when) override {
    if (when > now_) now_ = when;
    return true;
  }
  void Interrupt() override {}
  void Advance(Seconds d) { now_ += std::chrono::duration_cast<SteadyTime::duration>(d); }

 private:
  SteadyTime now_{std::chrono::hours(1000)};
};

ProbeTask Task(std::string name, double interval_s,
               std::function<ProbeOutcome(const CancelToken&)> run) {
  ProbeTask task;
  auto slash = name.find('/');
  task.probe = name.substr(0, slash);
  task.target = slash == std::string::npos ? "" : name.substr(slash + 1);
  task.timing.interval = Seconds(interval_s);
  task.timing.jitter_fraction = 0.1;
  task.timeout = Seconds(30);
  task.run = std::move(run);
  return task;
}

TEST(TimetableTest, SplayAndJitterStayInBounds) {
  SteadyTime start{};
  for (uint64_t seed = 0; seed < 50; ++seed) {
    ProbeTiming timing;
    timing.interval = Seconds(100);
    timing.jitter_fraction = 0.1;
    Timetable table({timing}, start, Seconds(30), seed);
    Seconds first = table.DueTime(0) - start;
    EXPECT_GE(first.count(), 0);
    EXPECT_LT(first.count(), 30);  // Splay is capped by max_splay.
    SteadyTime previous = table.DueTime(0);
    for (int run = 0; run < 20; ++run) {
      table.Completed(0, previous);
      Seconds gap = table.DueTime(0) - previous;
      EXPECT_GE(gap.count(), 90 - 1e-6);
      EXPECT_LE(gap.count(), 110 + 1e-6);
      previous = table.DueTime(0);
    }
  }
}

TEST(TimetableTest, SplaySpreadsAFleetRestartedTogether) {
  ProbeTiming timing;
  timing.interval = Seconds(600);
  std::set<long> buckets;
  for (uint64_t node = 0; node < 64; ++node) {
    Timetable table({timing}, SteadyTime{}, Seconds(600), node);
    buckets.insert(static_cast<long>(Seconds(table.DueTime(0) - SteadyTime{}).count() / 60));
  }
  EXPECT_GE(buckets.size(), 8u);  // Not all in one minute.
}

TEST(TimetableTest, BusyBacksOffExponentiallyThenGivesUp) {
  ProbeTiming timing;
  timing.interval = Seconds(600);
  timing.busy_backoff_base = Seconds(2);
  timing.max_busy_retries = 4;
  Timetable table({timing}, SteadyTime{}, Seconds(0), 7);
  const SteadyTime regular = table.DueTime(0);
  SteadyTime now = regular;
  for (int attempt = 0; attempt < 4; ++attempt) {
    ASSERT_TRUE(table.Busy(0, now));
    double backoff = Seconds(table.DueTime(0) - now).count();
    double nominal = 2.0 * (1 << attempt);  // 2, 4, 8, 16 s, +-50%.
    EXPECT_GE(backoff, nominal * 0.5 - 1e-6);
    EXPECT_LE(backoff, nominal * 1.5 + 1e-6);
    now = table.DueTime(0);
  }
  EXPECT_FALSE(table.Busy(0, now));  // Retries used up: back to the regular interval.
  double next = Seconds(table.DueTime(0) - regular).count();
  EXPECT_GE(next, 540 - 1e-6);
  EXPECT_LE(next, 660 + 1e-6);
}

TEST(SchedulerTest, RunsProbesOnSchedule) {
  FakeClock clock;
  int a_runs = 0, b_runs = 0;
  auto body = [&](int* counter) {
    return [&, counter](const CancelToken&) {
      ++*counter;
      clock.Advance(Seconds(5));  // Each probe takes 5 s.
      return ProbeOutcome::kSuccess;
    };
  };
  std::vector<ProbeTask> tasks;
  tasks.push_back(Task("tcp/a", 60, body(&a_runs)));
  tasks.push_back(Task("tcp/b", 60, body(&b_runs)));
  Scheduler scheduler(std::move(tasks), clock, Seconds(10), 1);
  for (int i = 0; i < 200; ++i) {
    clock.WaitUntil(scheduler.NextDue());
    scheduler.RunDue();
  }
  EXPECT_GT(a_runs, 50);
  EXPECT_NEAR(a_runs, b_runs, 3);
  EXPECT_EQ(scheduler.Stats()["tcp/a"].runs["success"], static_cast<uint64_t>(a_runs));
}

// Probes share the node's CPU, NIC and PCIe, so the scheduler's own thread
// runs them one at a time, also when two are due at the same instant. The
// first probe holds on until the second one starts (an overlap: the test
// fails at once) or until 300 ms have passed (none: the scheduler waited for
// it). The outcome does not depend on timing: a scheduler that overlaps them
// is caught however fast or slow the machine, one that does not always passes.
TEST(SchedulerTest, ProbesDueTogetherRunOneAfterTheOtherOnItsThread) {
  RealClock clock;
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::string> events;
  int running = 0;
  bool overlapped = false;
  auto body = [&](const std::string& name, bool wait_for_other) {
    return [&, name, wait_for_other](const CancelToken&) {
      std::unique_lock<std::mutex> lock(mutex);
      overlapped = overlapped || running > 0;
      ++running;
      events.push_back(name + " start");
      changed.notify_all();
      if (wait_for_other) {
        changed.wait_for(lock, std::chrono::milliseconds(300), [&] { return running > 1; });
      }
      --running;
      events.push_back(name + " end");
      changed.notify_all();
      return ProbeOutcome::kSuccess;
    };
  };
  std::vector<ProbeTask> tasks;
  // No splay and hour-long intervals: both are due at start, once.
  tasks.push_back(Task("tcp/a", 3600, body("a", true)));
  tasks.push_back(Task("tcp/b", 3600, body("b", true)));
  Scheduler scheduler(std::move(tasks), clock, Seconds(0), 1);
  scheduler.Start();
  {
    std::unique_lock<std::mutex> lock(mutex);
    ASSERT_TRUE(changed.wait_for(lock, std::chrono::seconds(30),
                                 [&] { return events.size() == 4 || overlapped; }));
  }
  scheduler.Stop();
  std::lock_guard<std::mutex> lock(mutex);
  EXPECT_FALSE(overlapped);
  ASSERT_EQ(events.size(), 4u);
  // One finished before the other started (which one first is the timetable's).
  EXPECT_EQ(events[0].substr(1), " start");
  EXPECT_EQ(events[1], events[0].substr(0, 1) + " end");
  EXPECT_EQ(events[2].substr(1), " start");
  EXPECT_NE(events[2][0], events[0][0]);
  EXPECT_EQ(events[3], events[2].substr(0, 1) + " end");
  auto stats = scheduler.Stats();
  EXPECT_EQ(stats["tcp/a"].runs["success"], 1u);
  EXPECT_EQ(stats["tcp/b"].runs["success"], 1u);
}

TEST(SchedulerTest, SkipsWhenTheFabricIsBusyAndCountsWhy) {
  FakeClock clock;
  int runs = 0;
  bool fabric_busy = true;
  std::vector<ProbeTask> tasks;
  tasks.push_back(Task("tcp/a", 60, [&](const CancelToken&) {
    ++runs;
    return ProbeOutcome::kSuccess;
  }));
  tasks[0].skip_reason = [&]() -> std::optional<std::string> {
    if (fabric_busy) return "fabric_busy";
    return std::nullopt;
  };
  Scheduler scheduler(std::move(tasks), clock, Seconds(0), 1);
  for (int i = 0; i < 3; ++i) {
    clock.WaitUntil(scheduler.NextDue());
    scheduler.RunDue();
  }
  EXPECT_EQ(runs, 0);
  EXPECT_EQ(scheduler.Stats()["tcp/a"].skips["fabric_busy"], 3u);
  fabric_busy = false;
  clock.WaitUntil(scheduler.NextDue());
  scheduler.RunDue();
  EXPECT_EQ(runs, 1);
}

TEST(SchedulerTest, BusyPeerIsRetriedSoonerThanTheInterval) {
  FakeClock clock;
  int attempts = 0;
  std::vector<ProbeTask> tasks;
  tasks.push_back(Task("tcp/a", 600, [&](const CancelToken&) {
    return ++attempts < 3 ? ProbeOutcome::kBusy : ProbeOutcome::kSuccess;
  }));
  Scheduler scheduler(std::move(tasks), clock, Seconds(0), 1);
  SteadyTime start = clock.Now();
  while (attempts < 3) {
    clock.WaitUntil(scheduler.NextDue());
    scheduler.RunDue();
  }
  EXPECT_LT(Seconds(clock.Now() - start).count(), 60);
  auto stats = scheduler.Stats()["tcp/a"];
  EXPECT_EQ(stats.runs["busy"], 2u);
  EXPECT_EQ(stats.runs["success"], 1u);
}

TEST(SchedulerTest, OverrunningProbeIsCountedAsTimeout) {
  FakeClock clock;
  std::vector<ProbeTask> tasks;
  tasks.push_back(Task("storage", 600, [&](const CancelToken& token) {
    while (!token.ShouldStop()) clock.Advance(Seconds(10));
    return ProbeOutcome::kFailure;
  }));
  Scheduler scheduler(std::move(tasks), clock, Seconds(0), 1);
  scheduler.RunDue();
  EXPECT_EQ(scheduler.Stats()["storage/"].runs["timeout"], 1u);
}

TEST(SchedulerTest, StopCancelsTheRunningProbeAndJoins) {
  RealClock clock;
  std::atomic<bool> started{false}, saw_cancel{false};
  std::vector<ProbeTask> tasks;
  tasks.push_back(Task("tcp/a", 3600, [&](const CancelToken& token) {
    started = true;
    while (!token.ShouldStop()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    saw_cancel = token.cancelled();
    return ProbeOutcome::kFailure;
  }));
  Scheduler scheduler(std::move(tasks), clock, Seconds(0), 1);
  scheduler.Start();
  while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  auto before = std::chrono::steady_clock::now();
  scheduler.Stop();
  EXPECT_TRUE(saw_cancel);
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(5));
}

TEST(SchedulerTest, StopWhileIdleReturnsPromptly) {
  RealClock clock;
  std::vector<ProbeTask> tasks;
  tasks.push_back(Task("tcp/a", 3600, [](const CancelToken&) { return ProbeOutcome::kSuccess; }));
  Scheduler scheduler(std::move(tasks), clock, Seconds(0), 1);
  scheduler.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto before = std::chrono::steady_clock::now();
  scheduler.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(2));
  EXPECT_EQ(scheduler.Stats()["tcp/a"].runs["success"], 1u);
}

}  // namespace
}  // namespace fabric
