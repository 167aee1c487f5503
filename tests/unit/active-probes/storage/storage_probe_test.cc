// The probe on real files in a temporary directory (this machine's /tmp):
// small sizes and windows, so the numbers are not the point; what it leaves
// behind, what it refuses and how it labels itself are.
#include "active-probes/storage/storage_probe.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "active-probes/storage/io_engine.h"
#include "tests/unit/active-probes/probe/probe_test_context.h"
#include "tests/unit/test_dir.h"

namespace fabric::storage {
namespace {

namespace fs = std::filesystem;

size_t CountEntries(const fs::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

// The host's procfs (mountinfo), no stop.
Result<StorageProbeResult> RunProbe(const StorageProbeOptions& o) {
  fabric::testing::TestContext test;
  return RunStorageProbe(o, test.context());
}

StorageProbeOptions Small(const fabric::testing::TestDir& dir, Mode mode) {
  StorageProbeOptions o;
  o.directory = dir.path().string();
  o.mode = mode;
  o.size = 8 << 20;
  o.block_size = IsRandom(mode) ? 4096 : 256 << 10;
  o.queue_depth = 8;
  o.warmup_seconds = 0.05;
  o.duration_seconds = 0.2;
  o.reserve_bytes = 0;
  return o;
}

TEST(StorageProbe, SequentialReadMeasuresAndCleansUp) {
  fabric::testing::TestDir dir;
  auto r = RunProbe(Small(dir, Mode::kRead));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_GT(r->bytes, 0u);
  EXPECT_EQ(r->bytes, r->ios * (256u << 10));
  EXPECT_GT(r->bytes_per_second, 0);
  EXPECT_GE(r->window_seconds, 0.2);
  EXPECT_LE(r->latency.p50, r->latency.p99);
  EXPECT_LE(r->latency.p99, r->latency.p999);
  EXPECT_GT(r->unloaded_latency_p50, 0);
  EXPECT_FALSE(r->includes_fdatasync);
  EXPECT_EQ(r->files, 1u);
  EXPECT_FALSE(r->filesystem.type.empty());
  EXPECT_FALSE(r->verdict.empty());
#ifdef FABRIC_WITH_URING
  EXPECT_EQ(r->engine, "io_uring");
  EXPECT_EQ(r->queue_depth, 8u);
  EXPECT_TRUE(r->engine_note.empty());
  // The job ran its ring from its own thread, whichever setup the kernel took.
  EXPECT_TRUE(r->ring_setup == "defer_taskrun" || r->ring_setup == "coop_taskrun" ||
              r->ring_setup == "plain")
      << r->ring_setup;
#else
  EXPECT_EQ(r->engine, "psync");
  EXPECT_NE(r->engine_note.find("not built"), std::string::npos);
#endif
  // tmpfs below 6.6 has no O_DIRECT; then the fallback must be labelled.
  EXPECT_EQ(r->direct, r->direct_note.empty());
  EXPECT_EQ(CountEntries(dir.path()), 0u);
}

TEST(StorageProbe, WriteIncludesFdatasyncAndCleansUp) {
  fabric::testing::TestDir dir;
  auto r = RunProbe(Small(dir, Mode::kWrite));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->includes_fdatasync);
  EXPECT_GT(r->bytes, 0u);
  EXPECT_EQ(CountEntries(dir.path()), 0u);
}

TEST(StorageProbe, RandomIopsOverSeparateFiles) {
  fabric::testing::TestDir dir;
  StorageProbeOptions o = Small(dir, Mode::kRandRead);
  o.jobs = 2;
  o.files = 2;
  auto r = RunProbe(o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->files, 2u);
  EXPECT_EQ(r->block_size, 4096u);
  EXPECT_GT(r->iops, 0);
  EXPECT_EQ(CountEntries(dir.path()), 0u);
}

TEST(StorageProbe, RandomWriteAndBufferedModes) {
  fabric::testing::TestDir dir;
  StorageProbeOptions o = Small(dir, Mode::kRandWrite);
  o.direct = false;
  o.duration_seconds = 20;  // An upper bound: the single pass ends the window.
  auto r = RunProbe(o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->direct);
  EXPECT_TRUE(r->direct_note.empty());  // Asked for, not a fallback.
  // One pass over a permutation of the blocks: each written exactly once,
  // all of it counted (no warm-up), all of it flushed by the fdatasync.
  EXPECT_TRUE(r->single_pass);
  EXPECT_EQ(r->bytes, 8u << 20);
  EXPECT_EQ(r->ios, (8u << 20) / 4096);
  EXPECT_EQ(CountEntries(dir.path()), 0u);
}

TEST(StorageProbe, PsyncEngineIsLabelled) {
  fabric::testing::TestDir dir;
  StorageProbeOptions o = Small(dir, Mode::kRead);
  o.engine = EngineChoice::kPsync;
  auto r = RunProbe(o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->engine, "psync");
  EXPECT_EQ(r->queue_depth, 1u);  // Effective depth, not the one asked for.
  EXPECT_EQ(r->ring_setup, "");
}

TEST(StorageProbe, EngineFallbackWhenIoUringIsUnavailable) {
  EngineRequest request;
  request.depth = 4;
  request.block_size = 4096;
  auto setup = MakeEngine(request);
  ASSERT_TRUE(setup.ok());
#ifdef FABRIC_WITH_URING
  EXPECT_EQ(setup->engine->name(), "io_uring");
#else
  EXPECT_EQ(setup->engine->name(), "psync");
  EXPECT_NE(setup->fallback_note.find("FABRIC_WITH_URING=OFF"), std::string::npos);
  request.require_uring = true;
  EXPECT_FALSE(MakeEngine(request).ok());
#endif
}

TEST(StorageProbe, RefusesASymlinkInPlaceOfTheProbeFile) {
  fabric::testing::TestDir dir;
  std::string victim = dir.Write("victim", "keep me");
  fs::create_symlink(victim, dir.path() / "fabric_probe_storage.0");
  auto r = RunProbe(Small(dir, Mode::kWrite));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("already exists"), std::string::npos) << r.error().message;
  EXPECT_EQ(fs::file_size(victim), 7u);
  EXPECT_TRUE(fs::is_symlink(dir.path() / "fabric_probe_storage.0"));

  StorageProbeOptions o = Small(dir, Mode::kRead);
  o.existing_file = "fabric_probe_storage.0";
  r = RunProbe(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("symlink"), std::string::npos) << r.error().message;
  o.existing_file = "../victim";
  EXPECT_FALSE(RunProbe(o).ok());
}

TEST(StorageProbe, RefusesASparseFileForRead) {
  fabric::testing::TestDir dir;
  int fd = ::open((dir.path() / "sparse").c_str(), O_CREAT | O_WRONLY, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, 8 << 20), 0);
  ASSERT_EQ(::pwrite(fd, "x", 1, 0), 1);  // Data at the start, a hole after it.
  ::fsync(fd);
  ::close(fd);
  StorageProbeOptions o = Small(dir, Mode::kRead);
  o.existing_file = "sparse";
  auto r = RunProbe(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("hole"), std::string::npos) << r.error().message;
  EXPECT_TRUE(fs::exists(dir.path() / "sparse"));  // Not ours: never removed.
}

TEST(StorageProbe, RefusesPreallocatedUnwrittenExtents) {
  fabric::testing::TestDir dir;
  int fd = ::open((dir.path() / "prealloc").c_str(), O_CREAT | O_WRONLY, 0600);
  ASSERT_GE(fd, 0);
  int rc = ::fallocate(fd, 0, 0, 8 << 20);
  ::close(fd);
  if (rc != 0) GTEST_SKIP() << "fallocate not supported here";
  StorageProbeOptions o = Small(dir, Mode::kRead);
  o.existing_file = "prealloc";
  auto r = RunProbe(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("unwritten"), std::string::npos) << r.error().message;
}

TEST(StorageProbe, ReadsAnExistingFullyWrittenFile) {
  fabric::testing::TestDir dir;
  dir.Write("data", std::string(4 << 20, 'z'));
  StorageProbeOptions o = Small(dir, Mode::kRead);
  o.existing_file = "data";
  o.size = 0;
  auto r = RunProbe(o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->size, 4u << 20);
  EXPECT_TRUE(fs::exists(dir.path() / "data"));
  o.mode = Mode::kWrite;
  EXPECT_FALSE(RunProbe(o).ok());  // Never writes into a file it did not create.
}

TEST(StorageProbe, RefusesToEatTheReserve) {
  fabric::testing::TestDir dir;
  StorageProbeOptions o = Small(dir, Mode::kWrite);
  o.reserve_bytes = UINT64_MAX / 2;
  auto r = RunProbe(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kNoSpace) << r.error().message;
  EXPECT_NE(r.error().message.find("--reserve"), std::string::npos) << r.error().message;
  EXPECT_EQ(CountEntries(dir.path()), 0u);
}

TEST(StorageProbe, StopFlagAbortsAndRemovesFiles) {
  fabric::testing::TestDir dir;
  fabric::testing::TestContext test;
  StorageProbeOptions o = Small(dir, Mode::kWrite);
  o.duration_seconds = 30;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    test.stop.RequestStop();
  });
  auto started = std::chrono::steady_clock::now();
  auto r = RunStorageProbe(o, test.context());
  stopper.join();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInterrupted) << r.error().message;
  for (const auto& e : fs::directory_iterator(dir.path())) ADD_FAILURE() << e.path();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  EXPECT_EQ(CountEntries(dir.path()), 0u);
}

TEST(StorageProbe, RejectsBadOptions) {
  fabric::testing::TestDir dir;
  StorageProbeOptions o = Small(dir, Mode::kRead);
  o.block_size = 1000;
  EXPECT_FALSE(RunProbe(o).ok());
  o = Small(dir, Mode::kRead);
  o.files = 3;
  o.jobs = 2;
  EXPECT_FALSE(RunProbe(o).ok());
  o = Small(dir, Mode::kWrite);
  o.directory.clear();
  o.device = "/dev/null";
  auto r = RunProbe(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("read-only"), std::string::npos);
  o.mode = Mode::kRead;
  r = RunProbe(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("not a block device"), std::string::npos);
  o = Small(dir, Mode::kRead);
  o.directory = (dir.path() / "missing").string();
  EXPECT_FALSE(RunProbe(o).ok());
  EXPECT_FALSE(ParseMode("sequential").ok());
}

}  // namespace
}  // namespace fabric::storage
