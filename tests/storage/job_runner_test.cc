// RunJob's completion polling against a scripted device: an engine whose I/Os
// complete one after another, `service` apart, on the monotonic clock. The
// device is scripted because what is tested is the runner's policy (spin only
// when completions come faster than the spin limit); the real rings are
// exercised by storage_probe_test and the fio comparison.
#include "active-probes/storage/job_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <vector>

namespace fabric::storage {
namespace {

class ScriptedDevice : public IoEngine {
 public:
  ScriptedDevice(uint32_t depth, int64_t service_ns)
      : depth_(depth), service_ns_(service_ns), buffers_(size_t{depth} * 4096) {}

  std::string_view name() const override { return "scripted"; }
  uint32_t depth() const override { return depth_; }
  bool registered_buffers() const override { return false; }
  uint8_t* buffer(uint32_t slot) override { return buffers_.data() + size_t{slot} * 4096; }

  Status Queue(uint32_t slot, IoKind, int, uint64_t, uint32_t length) override {
    queued_.push_back({slot, length});
    return OkStatus();
  }

  Status Submit() override {
    int64_t now = MonotonicNanos();
    for (const auto& q : queued_) {
      // A device serving one I/O at a time: it starts when the previous one is done.
      busy_until_ = std::max(busy_until_, now) + service_ns_;
      in_flight_.push_back({q.slot, q.length, busy_until_});
    }
    queued_.clear();
    return OkStatus();
  }

  bool CompletionReady() override {
    return !in_flight_.empty() && in_flight_.front().due_ns <= MonotonicNanos();
  }

  Result<size_t> Reap(std::span<IoCompletion> out, int64_t) override {
    FABRIC_RETURN_IF_ERROR(Submit());
    if (in_flight_.empty()) return size_t{0};
    if (!CompletionReady()) {
      ++sleeps_;
      SleepUntil(in_flight_.front().due_ns);
    }
    size_t n = 0;
    while (n < out.size() && CompletionReady()) {
      out[n++] = {in_flight_.front().slot, in_flight_.front().length};
      in_flight_.pop_front();
    }
    return n;
  }

  int sleeps() const { return sleeps_; }

 private:
  struct Queued {
    uint32_t slot;
    uint32_t length;
  };
  struct InFlight {
    uint32_t slot;
    uint32_t length;
    int64_t due_ns;
  };
  uint32_t depth_;
  int64_t service_ns_;
  std::vector<uint8_t> buffers_;
  std::vector<Queued> queued_;
  std::deque<InFlight> in_flight_;
  int64_t busy_until_ = 0;
  int sleeps_ = 0;
};

JobSpec Spec(int64_t poll_ns, int64_t window_ns) {
  JobSpec s;
  s.kind = IoKind::kRead;
  s.region_start = 0;
  s.region_end = 4096 * 64;
  s.block_size = 4096;
  s.poll_ns = poll_ns;
  s.window_start_ns = MonotonicNanos();
  s.window_end_ns = s.window_start_ns + window_ns;
  return s;
}

TEST(JobRunnerPolling, SpinsWhenCompletionsComeFasterThanTheLimit) {
  ScriptedDevice device(1, 20'000);  // 20 us apart, limit 200 us.
  JobStats stats;
  ASSERT_TRUE(RunJob(device, Spec(200'000, 50'000'000), stats).ok());
  EXPECT_GT(stats.ios, 100u);
  EXPECT_GT(stats.poll_seconds, 0.01);  // Most of the 50 ms window waits for the device.
  // Spun for, not slept for (a preempted spin may still end in a sleep now and then).
  EXPECT_LT(device.sleeps(), static_cast<int>(stats.ios / 10));
}

TEST(JobRunnerPolling, SleepsWhenCompletionsComeSlowerThanTheLimit) {
  ScriptedDevice device(1, 2'000'000);  // 2 ms apart, limit 100 us.
  JobStats stats;
  ASSERT_TRUE(RunJob(device, Spec(100'000, 80'000'000), stats).ok());
  EXPECT_GE(stats.ios, 30u);
  // Only the first wait spins (the gap is not known yet); spinning every wait would have cost
  // about 40 x 100 us.
  EXPECT_LE(stats.poll_seconds, 0.001);
  EXPECT_GE(device.sleeps(), 30);
}

TEST(JobRunnerPolling, ZeroLimitNeverSpins) {
  ScriptedDevice device(4, 20'000);
  JobStats stats;
  ASSERT_TRUE(RunJob(device, Spec(0, 20'000'000), stats).ok());
  EXPECT_GT(stats.ios, 0u);
  EXPECT_EQ(stats.poll_seconds, 0);
}

TEST(JobRunnerPolling, SpinningIsNotCountedAsCpu) {
  ScriptedDevice device(1, 50'000);
  JobStats stats;
  double cpu_before = ThreadCpuSeconds();
  ASSERT_TRUE(RunJob(device, Spec(200'000, 100'000'000), stats).ok());
  double thread_cpu = ThreadCpuSeconds() - cpu_before;
  EXPECT_GT(stats.poll_seconds, 0.05);
  // The thread spent most of the window spinning; the job's CPU is what is left.
  EXPECT_LT(stats.cpu_seconds, thread_cpu - 0.04);
}

}  // namespace
}  // namespace fabric::storage
