#include "common/kernel/proc_stat.h"

#include <gtest/gtest.h>

#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

TEST(ProcStatReaderTest, ReadsThroughTheRoot) {
  fabric::testing::TestDir dir;
  SysRoot root((dir.path() / "proc").string(), (dir.path() / "sys").string());
  EXPECT_TRUE(ReadProcStat(root).absent());
  // A long intr line first: the reader does not stop at the first block.
  std::string intr = "intr";
  for (int i = 0; i < 5000; ++i) intr += " " + std::to_string(i);
  dir.Write("proc/stat", intr + "\ncpu  4 0 4 8 0 0 0 0\ncpu0 4 0 4 8 0 0 0 0\n");
  auto cpus = ReadProcStat(root);
  ASSERT_TRUE(cpus.ok()) << cpus.error().message;
  ASSERT_EQ(cpus->size(), 2u);
  EXPECT_EQ((*cpus)[1].cpu, 0);
  EXPECT_EQ((*cpus)[1].Busy(), 8u);
}

TEST(ProcStatReaderTest, TheHostsOwn) {
  auto cpus = ReadProcStat(SysRoot());
  ASSERT_TRUE(cpus.ok()) << cpus.error().message;
  EXPECT_EQ(cpus->front().cpu, -1);
  EXPECT_GE(cpus->size(), 2u);
}

}  // namespace
}  // namespace fabric
