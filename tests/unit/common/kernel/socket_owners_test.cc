#include "common/kernel/socket_owners.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

TEST(SocketInodeOfLinkTest, OnlySocketLinks) {
  struct Case {
    const char* link;
    std::optional<uint64_t> want;
  };
  const Case cases[] = {
      {"socket:[123456]", 123456},
      {"socket:[0]", 0},
      {"socket:[]", std::nullopt},
      {"socket:[12x]", std::nullopt},
      {"socket:[12", std::nullopt},
      {"pipe:[123456]", std::nullopt},
      {"anon_inode:[eventpoll]", std::nullopt},
      {"/dev/null", std::nullopt},
      {"", std::nullopt},
  };
  for (const auto& c : cases) EXPECT_EQ(SocketInodeOfLink(c.link), c.want) << c.link;
}

// A /proc tree as the kernel lays it out: fd links whose targets are
// "socket:[N]" (dangling as symlinks, which is how procfs reads them).
TEST(FindSocketOwnersTest, NamesTheProcessHoldingEachInode) {
  fabric::testing::TestDir dir;
  dir.Write("proc/100/comm", "socat\n");
  dir.Write("proc/200/comm", "sshd\n");
  dir.Write("proc/self/comm", "ignored\n");
  dir.Write("proc/net/tcp", "");
  const auto proc = dir.path() / "proc";
  std::filesystem::create_directories(proc / "100/fd");
  std::filesystem::create_directories(proc / "200/fd");
  std::filesystem::create_directories(proc / "self/fd");
  std::filesystem::create_symlink("/dev/null", proc / "100/fd/0");
  std::filesystem::create_symlink("pipe:[77]", proc / "100/fd/1");
  std::filesystem::create_symlink("socket:[5001]", proc / "100/fd/5");
  std::filesystem::create_symlink("socket:[6001]", proc / "200/fd/3");
  std::filesystem::create_symlink("socket:[5001]", proc / "200/fd/9");  // Shared after a fork.
  std::filesystem::create_symlink("socket:[7001]", proc / "self/fd/3");
  SysRoot root(proc.string(), (dir.path() / "sys").string());

  std::filesystem::create_symlink("socket:[5001]", proc / "200/fd/10");  // Twice in one process.
  auto owners = FindSocketOwners(root, {5001, 6001, 7001, 8001});
  EXPECT_EQ(owners.size(), 2u);
  EXPECT_EQ(owners[5001].comm, "socat");
  EXPECT_EQ(owners[5001].pids, (std::vector<uint32_t>{100, 200}));
  EXPECT_EQ(owners[6001].comm, "sshd");
  EXPECT_EQ(owners[6001].pids, (std::vector<uint32_t>{200}));
  EXPECT_FALSE(owners.contains(7001));  // "self" is no process directory.
  EXPECT_TRUE(FindSocketOwners(root, {}).empty());
}

TEST(FindSocketOwnersTest, AMissingProcfsIsNoOwner) {
  SysRoot root("/nonexistent/proc", "/nonexistent/sys");
  EXPECT_TRUE(FindSocketOwners(root, {1}).empty());
}

// The host's own /proc: a socket this test holds is found under its own pid.
TEST(FindSocketOwnersTest, TheHostsOwn) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  struct stat st {};
  ASSERT_EQ(::fstat(fd, &st), 0);
  auto owners = FindSocketOwners(SysRoot(), {static_cast<uint64_t>(st.st_ino)});
  ::close(fd);
  ASSERT_EQ(owners.size(), 1u);
  EXPECT_FALSE(owners.begin()->second.comm.empty());
  EXPECT_EQ(owners.begin()->second.pids,
            (std::vector<uint32_t>{static_cast<uint32_t>(::getpid())}));
}

}  // namespace
}  // namespace fabric
