#include "common/kernel/thread_run_times.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>

#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

TEST(ReadThreadRunnableNanosecondsTest, SumsRunAndWaitPerThread) {
  fabric::testing::TestDir dir;
  dir.Write("proc/42/task/42/schedstat", "1000 500 7\n");
  dir.Write("proc/42/task/43/schedstat", "50000000 948000000 900\n");
  dir.Write("proc/42/task/44/schedstat", "garbage\n");  // Left out, not an error.
  dir.Write("proc/42/task/notatid/schedstat", "1 2 3\n");
  SysRoot root((dir.path() / "proc").string(), (dir.path() / "sys").string());
  auto threads = ReadThreadRunnableNanoseconds(root, 42);
  EXPECT_EQ(threads, (std::map<uint32_t, uint64_t>{{42, 1500}, {43, 998000000}}));
  EXPECT_TRUE(ReadThreadRunnableNanoseconds(root, 7).empty());  // Gone.
}

// This process's own thread, spinning: its run time grows by about the wall time it spun.
TEST(ReadThreadRunnableNanosecondsTest, ThisProcess) {
  const uint32_t pid = static_cast<uint32_t>(::getpid());
  auto before = ReadThreadRunnableNanoseconds(SysRoot(), pid);
  ASSERT_TRUE(before.contains(pid)) << "no /proc/self/task/PID/schedstat";
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(50)) {
  }
  auto after = ReadThreadRunnableNanoseconds(SysRoot(), pid);
  ASSERT_TRUE(after.contains(pid));
  // Runnable all the while it spun (on a CPU or waiting for one); schedstat lags by at most the
  // slice in progress, so at least a part of the 50 ms shows.
  EXPECT_GT(after[pid], before[pid]);
}

}  // namespace
}  // namespace fabric
