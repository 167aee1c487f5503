#include "common/kernel/process_self.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <ctime>
#include <vector>

#include "common/unique_fd.h"
#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

TEST(ProcessSelfTest, ReadsThroughTheRoot) {
  fabric::testing::TestDir dir;
  SysRoot root((dir.path() / "proc").string(), (dir.path() / "sys").string());
  EXPECT_FALSE(ReadProcessSelf(root).ok());
  dir.Write("proc/self/stat",
            "7 (fabric_exporter) S 1 7 7 0 -1 0 0 0 0 0 250 50 0 0 20 0 4 0 1000 4096000 25 0\n");
  dir.Write("proc/stat", "cpu 1 2 3 4 5 6 7 8\nbtime 1765000000\n");
  dir.Write("proc/self/limits", "Max open files            4096                 8192    files\n");
  for (const char* fd : {"0", "1", "2", "3"}) dir.Write(std::string("proc/self/fd/") + fd, "");
  auto self = ReadProcessSelf(root);
  ASSERT_TRUE(self.ok()) << self.error().message;
  const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  EXPECT_DOUBLE_EQ(self->cpu_seconds, 300 / hz);
  EXPECT_DOUBLE_EQ(self->start_time_seconds, 1765000000 + 1000 / hz);
  EXPECT_EQ(self->resident_bytes, 25u * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)));
  EXPECT_EQ(self->virtual_bytes, 4096000u);
  // The listing's own descriptor is not one of the process's: a fixture has none.
  EXPECT_EQ(self->open_fds, 3u);
  EXPECT_EQ(self->max_fds, 4096u);
}

TEST(ProcessSelfTest, ThisProcess) {
  auto before = ReadProcessSelf(SysRoot());
  ASSERT_TRUE(before.ok()) << before.error().message;
  // Five more descriptors are five more open fds.
  std::vector<UniqueFd> opened;
  for (int i = 0; i < 5; ++i) opened.emplace_back(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  // Burn 50 ms of CPU: user time moves by whole ticks.
  const std::clock_t start = std::clock();
  volatile uint64_t spin = 0;
  while (std::clock() - start < CLOCKS_PER_SEC / 20) spin = spin + 1;
  auto after = ReadProcessSelf(SysRoot());
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_EQ(after->open_fds, before->open_fds + 5);
  EXPECT_GT(after->cpu_seconds, before->cpu_seconds);
  EXPECT_GT(after->resident_bytes, 0u);
  EXPECT_GE(after->virtual_bytes, after->resident_bytes);
  EXPECT_EQ(after->start_time_seconds, before->start_time_seconds);
  EXPECT_LE(after->start_time_seconds, static_cast<double>(std::time(nullptr)) + 1);
  EXPECT_GT(after->start_time_seconds, static_cast<double>(std::time(nullptr)) - 3600);
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
  EXPECT_EQ(after->max_fds, limit.rlim_cur);
}

}  // namespace
}  // namespace fabric
