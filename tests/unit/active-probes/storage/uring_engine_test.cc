// Each io_uring setup the engine can fall back to moves the right bytes, from a
// thread other than the one that made the engine (the probe makes engines on
// its main thread and runs them on job threads, which a single-issuer ring
// must allow). Real rings on a real file; skipped when io_uring is not built or
// the kernel refuses the setup.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <thread>
#include <vector>

#include "active-probes/storage/io_engine.h"
#include "active-probes/storage/job_runner.h"
#include "tests/unit/test_dir.h"

namespace fabric::storage {
namespace {

class UringSetupTest : public ::testing::TestWithParam<RingSetup> {};

TEST_P(UringSetupTest, WritesAndReadsBackFromAnotherThread) {
#ifndef FABRIC_WITH_URING
  GTEST_SKIP() << "io_uring support not built";
#else
  constexpr uint32_t kBlock = 4096;
  constexpr uint64_t kSize = 64 * kBlock;
  auto engine = MakeUringEngine(8, kBlock, GetParam());
  if (!engine.ok()) GTEST_SKIP() << engine.error().message;
  if ((*engine)->setup() != RingSetupName(GetParam())) {
    GTEST_SKIP() << "kernel fell back to " << (*engine)->setup();
  }
  fabric::testing::TestDir dir;
  std::string path = (dir.path() / "data").string();
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0) << std::strerror(errno);

  // The thread that made the engine never uses it; one other thread does everything.
  Status filled = OkStatus();
  Status ran = OkStatus();
  JobStats stats;
  std::vector<uint8_t> written(kSize);
  std::thread job([&] {
    filled = FillFile(**engine, fd, kSize, kBlock, path, StopToken());
    if (!filled.ok()) return;
    // Random reads of the same file for a short window.
    JobSpec spec;
    spec.kind = IoKind::kRead;
    spec.random = true;
    spec.fd = fd;
    spec.file_name = path;
    spec.region_end = kSize;
    spec.block_size = kBlock;
    spec.window_start_ns = MonotonicNanos();
    spec.window_end_ns = spec.window_start_ns + 50'000'000;
    ran = RunJob(**engine, spec, stats);
  });
  job.join();
  ASSERT_TRUE(filled.ok()) << filled.error().message;
  ASSERT_EQ(::pread(fd, written.data(), kSize, 0), static_cast<ssize_t>(kSize));
  // FillFile's data is random, so an all-zero block means a write never happened.
  std::vector<uint8_t> zeros(kBlock, 0);
  for (uint64_t at = 0; at < kSize; at += kBlock) {
    EXPECT_NE(std::memcmp(written.data() + at, zeros.data(), kBlock), 0) << "block at " << at;
  }
  ::close(fd);
  ASSERT_TRUE(ran.ok()) << ran.error().message;
  EXPECT_GT(stats.ios, 8u);
  EXPECT_EQ(stats.bytes, stats.ios * kBlock);
#endif
}

TEST(UringEngine, ASecondThreadOnASingleIssuerRingGetsAClearError) {
#ifndef FABRIC_WITH_URING
  GTEST_SKIP() << "io_uring support not built";
#else
  auto engine = MakeUringEngine(4, 4096, RingSetup::kDeferTaskrun);
  if (!engine.ok()) GTEST_SKIP() << engine.error().message;
  if ((*engine)->setup() != "defer_taskrun") GTEST_SKIP() << "no single-issuer rings here";
  fabric::testing::TestDir dir;
  std::string path = (dir.path() / "data").string();
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  std::thread first(
      [&] { ASSERT_TRUE(FillFile(**engine, fd, 8 * 4096, 4096, path, StopToken()).ok()); });
  first.join();
  Status second = OkStatus();
  std::thread other([&] { second = FillFile(**engine, fd, 8 * 4096, 4096, path, StopToken()); });
  other.join();
  ::close(fd);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().message.find("second thread"), std::string::npos)
      << second.error().message;
#endif
}

INSTANTIATE_TEST_SUITE_P(AllSetups, UringSetupTest,
                         ::testing::Values(RingSetup::kDeferTaskrun, RingSetup::kCoopTaskrun,
                                           RingSetup::kPlain),
                         [](const auto& info) { return std::string(RingSetupName(info.param)); });

TEST(UringEngine, DefaultsToTheMostCapableSetupTheKernelAccepts) {
#ifndef FABRIC_WITH_URING
  GTEST_SKIP() << "io_uring support not built";
#else
  auto engine = MakeUringEngine(4, 4096);
  if (!engine.ok()) GTEST_SKIP() << engine.error().message;
  auto forced = MakeUringEngine(4, 4096, RingSetup::kDeferTaskrun);
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ((*engine)->setup(), (*forced)->setup());
  EXPECT_EQ(RingSetupName(RingSetup::kDeferTaskrun), "defer_taskrun");
#endif
}

}  // namespace
}  // namespace fabric::storage
