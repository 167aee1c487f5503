// The data path's pieces: the payload file each sender mode gets, and the
// per-stream CPU time a finished stream thread still reports.
#include "active-probes/tcp/stream_io.h"

#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace fabric::probe {
namespace {

bool OnTmpfs(int fd) {
  struct statfs fs {};
  EXPECT_EQ(fstatfs(fd, &fs), 0);
  return fs.f_type == TMPFS_MAGIC;
}

TEST(PayloadTest, SendfileFileIsUnnamedAndItsKindIsWhatItIs) {
  auto p = Payload::Create(256 * 1024, SendMode::kSendfile);
  ASSERT_TRUE(p.ok()) << p.error().message;
  struct stat st {};
  ASSERT_EQ(fstat((*p)->file(), &st), 0);
  EXPECT_EQ(st.st_nlink, 0u);  // never linked: gone when the last descriptor closes
  EXPECT_EQ(static_cast<size_t>(st.st_size), 256u * 1024);
  // A page cache file where a disk filesystem was writable, else shmem; the
  // reported kind must match the file's filesystem either way.
  EXPECT_EQ((*p)->file_kind(), OnTmpfs((*p)->file()) ? "shmem" : "page cache");
}

TEST(PayloadTest, CopyModeUsesShmemAndFileAndMappingHoldTheSameBytes) {
  auto p = Payload::Create(64 * 1024 + 100, SendMode::kCopy);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ((*p)->file_kind(), "shmem");
  EXPECT_TRUE(OnTmpfs((*p)->file()));
  std::vector<char> back((*p)->size());
  ASSERT_EQ(pread((*p)->file(), back.data(), back.size(), 0), static_cast<ssize_t>(back.size()));
  EXPECT_EQ(std::memcmp(back.data(), (*p)->data(), back.size()), 0);
  // Non-zero, and no two pages alike.
  EXPECT_NE((*p)->data()[0], 0);
  EXPECT_NE(std::memcmp((*p)->data(), (*p)->data() + 4096, 4096), 0);
}

TEST(PayloadTest, FallsBackToShmemWhenNoDirectoryIsUsable) {
  const char* saved = std::getenv("TMPDIR");
  std::string old = saved ? saved : "";
  // TMPDIR is tried first; a missing one is skipped, and the result is still a
  // working payload of the right size.
  setenv("TMPDIR", "/nonexistent-fabric-probe-dir", 1);
  auto p = Payload::Create(4096, SendMode::kSendfile);
  if (saved) {
    setenv("TMPDIR", old.c_str(), 1);
  } else {
    unsetenv("TMPDIR");
  }
  ASSERT_TRUE(p.ok()) << p.error().message;
  struct stat st {};
  ASSERT_EQ(fstat((*p)->file(), &st), 0);
  EXPECT_EQ(st.st_size, 4096);
}

// One receiving stream of a StreamSet, fed through a socketpair.
class OneReceiverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int sv[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    writer_.Reset(sv[1]);
    auto payload = Payload::Create(128 * 1024, SendMode::kCopy);
    ASSERT_TRUE(payload.ok());
    set_ = std::make_unique<StreamSet>(*payload, SendMode::kCopy, 0);
    std::vector<StreamSpec> specs(1);
    specs[0].fd = UniqueFd(sv[0]);
    specs[0].send = false;
    ASSERT_TRUE(set_->Start(std::move(specs)).ok());
  }
  void Write(const std::vector<char>& chunk) {
    ASSERT_EQ(write(writer_.get(), chunk.data(), chunk.size()), static_cast<ssize_t>(chunk.size()));
  }

  UniqueFd writer_;
  std::unique_ptr<StreamSet> set_;
};

// A receiver that sees the end of its stream before the window's last edge
// still reports the CPU it used (its clock cannot be read once it is done).
TEST_F(OneReceiverTest, FinishedReceiverKeepsItsCpuTime) {
  std::vector<char> chunk(64 * 1024, 'x');
  for (int i = 0; i < 256; ++i) ASSERT_NO_FATAL_FAILURE(Write(chunk));
  writer_.Reset();  // EOF: the receiver ends
  set_->Join(std::chrono::milliseconds(10000));
  std::vector<StreamSnapshot> s = set_->Snapshot();  // joined: only the recorded value is left
  EXPECT_EQ(s[0].bytes, 256u * 64 * 1024);
  EXPECT_GT(s[0].thread_cpu_seconds, 0);
}

// A receiver records when it read the peer's FIN (where a late end edge is
// cut), and nothing while the peer still sends.
TEST_F(OneReceiverTest, RecordsWhenThePeerClosed) {
  std::vector<char> chunk(64 * 1024, 'x');
  ASSERT_NO_FATAL_FAILURE(Write(chunk));
  EXPECT_FALSE(set_->Snapshot()[0].peer_closed.has_value());  // the writer is open
  const auto before_close = std::chrono::steady_clock::now();
  writer_.Reset();
  set_->Join(std::chrono::milliseconds(10000));
  const auto after_join = std::chrono::steady_clock::now();
  std::vector<StreamSnapshot> s = set_->Snapshot();
  ASSERT_TRUE(s[0].peer_closed.has_value());
  EXPECT_GE(*s[0].peer_closed, before_close);
  EXPECT_LE(*s[0].peer_closed, after_join);
  EXPECT_EQ(s[0].bytes, chunk.size());
}

// Unnamed, a run receives in its send block's size, never in less than 128 KiB.
TEST(DefaultRecvBlockTest, IsTheSendBlockAtLeast128K) {
  EXPECT_EQ(DefaultRecvBlock(16 * 1024), kDefaultRecvBlock);
  EXPECT_EQ(DefaultRecvBlock(128 * 1024), 128u * 1024);
  EXPECT_EQ(DefaultRecvBlock(1024 * 1024), 1024u * 1024);
}

}  // namespace
}  // namespace fabric::probe
