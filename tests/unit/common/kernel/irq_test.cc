#include "common/kernel/irq.h"

#include <gtest/gtest.h>

#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

TEST(IrqTest, AffinityListInTheKernelsFormat) {
  fabric::testing::TestDir dir;
  dir.Write("proc/irq/98/smp_affinity_list", "0-3,8,10-11\n");
  dir.Write("proc/irq/99/smp_affinity_list", "5\n");
  dir.Write("proc/irq/100/smp_affinity_list", "not-a-list\n");
  SysRoot root((dir.path() / "proc").string(), (dir.path() / "sys").string());
  auto a = ReadIrqAffinity(root, 98);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(*a, (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(*ReadIrqAffinity(root, 99), (std::vector<int>{5}));
  EXPECT_TRUE(ReadIrqAffinity(root, 101).absent());  // Freed, or procfs hides it.
  auto bad = ReadIrqAffinity(root, 100);
  ASSERT_FALSE(bad.ok());
  EXPECT_FALSE(bad.absent());
  EXPECT_NE(bad.error().message.find("irq/100/smp_affinity_list"), std::string::npos);
}

}  // namespace
}  // namespace fabric
