#include "common/kernel/cpufreq.h"

#include <gtest/gtest.h>

#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

TEST(CpufreqTest, GovernorTrimmedAndNoneWithoutCpufreq) {
  fabric::testing::TestDir dir;
  dir.Write("sys/devices/system/cpu/cpu3/cpufreq/scaling_governor", "schedutil\n");
  dir.Write("sys/devices/system/cpu/cpu4/online", "1\n");  // A VM: no cpufreq directory.
  SysRoot root((dir.path() / "proc").string(), (dir.path() / "sys").string());
  auto g = ReadCpuGovernor(root, 3);
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(*g, std::optional<std::string>("schedutil"));
  auto none = ReadCpuGovernor(root, 4);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

}  // namespace
}  // namespace fabric
