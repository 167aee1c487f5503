#include "common/read/open_file_cache.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

#include "common/read/file_reader.h"
#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

size_t OpenFds() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    ++n;
  }
  return n;
}

// The cache is the process's: each test enables it and leaves it disabled and empty.
class OpenFileCacheTest : public ::testing::Test {
 protected:
  void SetUp() override { OpenFileCache::Global().SetBudget(100); }
  void TearDown() override {
    OpenFileCache::Global().SetBudget(0);
    EXPECT_EQ(OpenFileCache::Global().open_files(), 0u);
    EXPECT_EQ(OpenFileCache::Global().open_directories(), 0u);
  }

  // Files cached right after a change are not trusted (file times are coarse); tests that
  // check reuse wait until the tree has been still long enough.
  static void LetSettle() { std::this_thread::sleep_for(std::chrono::milliseconds(150)); }

  static std::string Read(const std::string& dir, const std::string& name) {
    auto v = AttributeDir(dir).Read(name);
    return v.ok() ? *v : (v.absent() ? "<absent>" : "<error: " + v.error().message + ">");
  }

  testing::TestDir tmp_;
};

TEST_F(OpenFileCacheTest, KeepsFilesOpenAndSeesWritesInPlace) {
  std::string dir = tmp_.path() / "eth0";
  tmp_.Write("eth0/rx_bytes", "1\n");
  tmp_.Write("eth0/tx_bytes", "2\n");
  LetSettle();
  EXPECT_EQ(Read(dir, "rx_bytes"), "1");
  EXPECT_EQ(Read(dir, "tx_bytes"), "2");
  EXPECT_EQ(OpenFileCache::Global().open_files(), 3u) << "two files and their directory";
  const size_t fds = OpenFds();
  // A counter moving: the file is rewritten in place, as sysfs values change.
  tmp_.Write("eth0/rx_bytes", "12345\n");
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(Read(dir, "rx_bytes"), "12345");
    EXPECT_EQ(Read(dir, "tx_bytes"), "2");
  }
  EXPECT_EQ(OpenFds(), fds) << "re-reads reuse the open files";
  EXPECT_EQ(OpenFileCache::Global().open_files(), 3u);
}

TEST_F(OpenFileCacheTest, FileReplacedByRenameIsReadAfresh) {
  std::string dir = tmp_.path() / "eth0";
  tmp_.Write("eth0/speed", "100000\n");
  LetSettle();
  EXPECT_EQ(Read(dir, "speed"), "100000");
  std::string replacement = tmp_.Write("speed.new", "25000\n");
  ASSERT_EQ(std::rename(replacement.c_str(), (dir + "/speed").c_str()), 0);
  EXPECT_EQ(Read(dir, "speed"), "25000");
}

TEST_F(OpenFileCacheTest, DirectoryReplacedAtTheSamePathIsReadAfresh) {
  // An interface renamed, or a device removed and re-added under the same name.
  std::string dir = tmp_.path() / "net/eth0";
  tmp_.Write("net/eth0/address", "aa:aa\n");
  LetSettle();
  EXPECT_EQ(Read(dir, "address"), "aa:aa");
  std::filesystem::rename(dir, tmp_.path() / "net/eth9");
  tmp_.Write("net/eth0/address", "bb:bb\n");
  EXPECT_EQ(Read(dir, "address"), "bb:bb");
}

TEST_F(OpenFileCacheTest, RemovedFileIsAbsent) {
  std::string dir = tmp_.path() / "port";
  std::string file = tmp_.Write("port/rate", "400 Gb/sec\n");
  LetSettle();
  EXPECT_EQ(Read(dir, "rate"), "400 Gb/sec");
  ASSERT_EQ(::unlink(file.c_str()), 0);
  EXPECT_EQ(Read(dir, "rate"), "<absent>");
}

TEST_F(OpenFileCacheTest, RemovedDirectoryIsAbsent) {
  std::string dir = tmp_.path() / "port";
  tmp_.Write("port/rate", "400 Gb/sec\n");
  LetSettle();
  EXPECT_EQ(Read(dir, "rate"), "400 Gb/sec");
  std::filesystem::remove_all(dir);
  EXPECT_EQ(Read(dir, "rate"), "<absent>");
}

// Files read within a timer tick of a change could miss a second change in the same tick, so a
// directory changed just now is opened afresh on every use until it has been still.
TEST_F(OpenFileCacheTest, RecentlyChangedDirectoryIsNotTrusted) {
  std::string dir = tmp_.path() / "eth0";
  tmp_.Write("eth0/mtu", "1500");
  EXPECT_EQ(Read(dir, "mtu"), "1500");
  // Replacements in quick succession, many within one tick of the clock that stamps the
  // directory's times: each must still be seen. (Kernels from 6.13 stamp a change that follows
  // a stat() with a fine-grained time, so there this passes without the settling rule too;
  // Debian 12's 6.1 needs it.)
  for (int i = 1; i <= 50; ++i) {
    std::string replacement = tmp_.Write("mtu.new", std::to_string(1500 + i));
    ASSERT_EQ(std::rename(replacement.c_str(), (dir + "/mtu").c_str()), 0);
    EXPECT_EQ(Read(dir, "mtu"), std::to_string(1500 + i)) << "replacement " << i;
  }
}

// Two threads reading one directory that is never settled (the emulated RDMA device's counters,
// renamed per completion batch, read by the probe and the responder in one exporter): each use
// replaces the cached directory, and a replacement can drop the last reference to the one another
// thread just put there. Its destructor gave its descriptors back to the cache's count under the
// lock the replacement held, and the exporter hung for good. The directory's times are set in the
// future here so that it never settles.
TEST_F(OpenFileCacheTest, ThreadsReplacingOneUnsettledDirectoryDoNotDeadlock) {
  std::string dir = tmp_.path() / "hw_counters";
  tmp_.Write("hw_counters/port_xmit_data", "42");
  timespec future[2] = {{time(nullptr) + 3600, 0}, {time(nullptr) + 3600, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, dir.c_str(), future, 0), 0);
  constexpr int kThreads = 4;
  constexpr int kReads = 3000;
  std::mutex mutex;
  std::condition_variable done;
  int finished = 0;
  int wrong = 0;
  std::vector<std::thread> readers;
  for (int t = 0; t < kThreads; ++t) {
    readers.emplace_back([&] {
      int bad = 0;
      for (int i = 0; i < kReads; ++i) bad += Read(dir, "port_xmit_data") != "42";
      std::lock_guard<std::mutex> lock(mutex);
      wrong += bad;
      ++finished;
      done.notify_one();
    });
  }
  std::unique_lock<std::mutex> lock(mutex);
  // Far beyond what the reads take (well under a second, ASan included): only a deadlock
  // gets here, and its threads can never be joined.
  if (!done.wait_for(lock, std::chrono::seconds(120), [&] { return finished == kThreads; })) {
    std::cerr << "OpenFileCache deadlocked: " << kThreads - finished << " of " << kThreads
              << " reader threads never finished\n";
    std::_Exit(1);
  }
  lock.unlock();
  for (auto& reader : readers) reader.join();
  EXPECT_EQ(wrong, 0);
  EXPECT_LE(OpenFileCache::Global().open_files(), 100u) << "the budget";
  EXPECT_LE(OpenFileCache::Global().open_directories(), 1u);
}

TEST_F(OpenFileCacheTest, SweepClosesWhatWasNotUsedInTwoScrapes) {
  std::string a = tmp_.path() / "a";
  std::string b = tmp_.path() / "b";
  tmp_.Write("a/x", "1");
  tmp_.Write("b/x", "2");
  LetSettle();
  const size_t fds_before = OpenFds();
  EXPECT_EQ(Read(a, "x"), "1");
  EXPECT_EQ(Read(b, "x"), "2");
  EXPECT_EQ(OpenFileCache::Global().open_directories(), 2u);
  OpenFileCache::Global().Sweep();
  EXPECT_EQ(Read(a, "x"), "1");  // b is not read in this "scrape".
  OpenFileCache::Global().Sweep();
  EXPECT_EQ(OpenFileCache::Global().open_directories(), 1u);
  EXPECT_EQ(OpenFileCache::Global().open_files(), 2u);
  OpenFileCache::Global().Sweep();
  OpenFileCache::Global().Sweep();
  EXPECT_EQ(OpenFileCache::Global().open_directories(), 0u);
  EXPECT_EQ(OpenFds(), fds_before) << "every descriptor closed";
}

TEST_F(OpenFileCacheTest, BudgetCapsOpenFilesAndReadsBeyondItStillWork) {
  OpenFileCache::Global().SetBudget(3);  // The directory and two of its files.
  std::string dir = tmp_.path() / "stats";
  for (int i = 0; i < 5; ++i) tmp_.Write("stats/c" + std::to_string(i), std::to_string(i * 10));
  LetSettle();
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ(Read(dir, "c" + std::to_string(i)), std::to_string(i * 10));
    }
    EXPECT_EQ(OpenFileCache::Global().open_files(), 3u);
  }
  // A second directory finds the budget spent and is read without the cache.
  tmp_.Write("other/x", "7");
  LetSettle();
  EXPECT_EQ(Read(tmp_.path() / "other", "x"), "7");
  EXPECT_EQ(OpenFileCache::Global().open_directories(), 1u);
  EXPECT_EQ(OpenFileCache::Global().open_files(), 3u);
}

TEST_F(OpenFileCacheTest, DisabledCacheKeepsNothingOpen) {
  OpenFileCache::Global().SetBudget(0);
  std::string dir = tmp_.path() / "eth0";
  tmp_.Write("eth0/mtu", "9000");
  LetSettle();
  const size_t fds = OpenFds();
  EXPECT_EQ(Read(dir, "mtu"), "9000");
  EXPECT_EQ(OpenFds(), fds);
  EXPECT_EQ(OpenFileCache::Global().open_directories(), 0u);
}

}  // namespace
}  // namespace fabric
