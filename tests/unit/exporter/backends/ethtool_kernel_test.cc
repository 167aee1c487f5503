// The kernel ethtool backend against this machine's own kernel, for what needs
// no root and no hardware: interfaces and drivers that cannot answer are
// absent, never errors. (The veth test covers answers.)
#include <gtest/gtest.h>

#include "exporter/backends/ethtool_backend.h"

namespace fabric {
namespace {

TEST(EthtoolKernelTest, MissingInterfaceIsAbsentForEveryRequest) {
  auto backend = MakeKernelEthtoolBackend();
  const std::string name = "fl4-nosuchif";
  EXPECT_TRUE(backend->DriverInfo(name).absent());
  EXPECT_TRUE(backend->Stats(name).absent());
  EXPECT_TRUE(backend->Pause(name).absent());
  EXPECT_TRUE(backend->Channels(name).absent());
  EXPECT_TRUE(backend->Rings(name).absent());
}

TEST(EthtoolKernelTest, LoopbackHasNoDriverInfoStatisticsOrPause) {
  auto backend = MakeKernelEthtoolBackend();
  auto info = backend->DriverInfo("lo");
  EXPECT_TRUE(info.absent()) << (info.ok() ? info->driver : info.error().message);
  EXPECT_TRUE(backend->Stats("lo").absent());
  EXPECT_TRUE(backend->Pause("lo").absent());
}

TEST(EthtoolKernelTest, OverlongNameIsAnError) {
  auto backend = MakeKernelEthtoolBackend();
  auto r = backend->DriverInfo("fl4-name-longer-than-ifnamsiz");
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.absent());
}

TEST(EthtoolKernelTest, SysfsMountDetection) {
  EXPECT_FALSE(IsMountedSysfs(std::string(FABRIC_SOURCE_DIR) + "/tests/fixtures/nics/sys"));
  EXPECT_FALSE(IsMountedSysfs("/nonexistent-fl4"));
  // Containers without /sys mounted skip the positive case.
  if (!IsMountedSysfs("/sys")) GTEST_SKIP() << "/sys is not a sysfs mount here";
  EXPECT_TRUE(IsMountedSysfs("/sys"));
}

}  // namespace
}  // namespace fabric
