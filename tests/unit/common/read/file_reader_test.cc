#include "common/read/file_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "common/read/sysroot.h"
#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

TEST(FileReaderTest, AttributeStripsTrailingNewline) {
  testing::TestDir dir;
  auto path = dir.Write("speed", "200000\n");
  auto value = ReadAttribute(path);
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, "200000");
}

TEST(FileReaderTest, MissingFileIsAbsentNotAnError) {
  testing::TestDir dir;
  auto value = ReadAttribute((dir.path() / "nope").string());
  ASSERT_FALSE(value.ok());
  EXPECT_TRUE(value.absent());
  EXPECT_NE(value.error().message.find("nope"), std::string::npos);
}

TEST(FileReaderTest, DirectoryInPlaceOfAFileIsAnError) {
  testing::TestDir dir;
  std::filesystem::create_directories(dir.path() / "softnet_stat");
  auto value = ReadTable((dir.path() / "softnet_stat").string());
  ASSERT_FALSE(value.ok());
  EXPECT_FALSE(value.absent());
  EXPECT_NE(value.error().message.find("Is a directory"), std::string::npos);
}

TEST(FileReaderTest, TableReadsPastOneChunkAndEnforcesCap) {
  testing::TestDir dir;
  std::string big(200 * 1024, 'x');
  auto path = dir.Write("big", big);
  auto whole = ReadTable(path);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->size(), big.size());
  auto capped = ReadTable(path, 1024);
  ASSERT_FALSE(capped.ok());
  EXPECT_NE(capped.error().message.find("larger than 1024 bytes"), std::string::npos);
}

// Config files can be pipes (--config.file=/dev/stdin, <(...)): tables are read
// from the file position, not with pread.
TEST(FileReaderTest, TableReadsAPipe) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::string text = "web:\n  max_threads: 4\n";
  ASSERT_EQ(::write(fds[1], text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ::close(fds[1]);
  auto value = ReadTable("/proc/self/fd/" + std::to_string(fds[0]));
  ::close(fds[0]);
  ASSERT_TRUE(value.ok()) << value.error().message;
  EXPECT_EQ(*value, text);
}

TEST(FileReaderTest, ProcfsFilesWithZeroStatSizeAreReadWhole) {
  auto value = ReadTable("/proc/self/status");
  ASSERT_TRUE(value.ok());
  EXPECT_NE(value->find("Name:"), std::string::npos);
}

TEST(FileReaderTest, ListDirectoryIsSorted) {
  testing::TestDir dir;
  dir.Write("b", "");
  dir.Write("a", "");
  auto names = ListDirectory(dir.path().string());
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(ListDirectory((dir.path() / "none").string()).absent());
}

TEST(FileReaderTest, AbsentErrnoPolicy) {
  EXPECT_TRUE(IsAbsentErrno(ENOENT));
  EXPECT_TRUE(IsAbsentErrno(EOPNOTSUPP));
  EXPECT_TRUE(IsAbsentErrno(ENODEV));
  EXPECT_FALSE(IsAbsentErrno(EIO));
  EXPECT_FALSE(IsAbsentErrno(EISDIR));
}

TEST(SysRootTest, JoinsRelativePaths) {
  SysRoot root("/fixtures/h200/proc/", "/fixtures/h200/sys");
  EXPECT_EQ(root.Proc("net/snmp"), "/fixtures/h200/proc/net/snmp");
  EXPECT_EQ(root.Sys("/class/net"), "/fixtures/h200/sys/class/net");
  EXPECT_EQ(SysRoot().Proc("net/dev"), "/proc/net/dev");
}

}  // namespace
}  // namespace fabric
