#include "common/parse/sysfs_values.h"

#include <gtest/gtest.h>

namespace fabric {
namespace {

TEST(SysfsValuesTest, IbState) {
  auto s = ParseIbState("4: ACTIVE\n", "state");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->code, 4);
  EXPECT_EQ(s->name, "ACTIVE");
  auto p = ParseIbState("5: LinkUp", "phys_state");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->code, 5);
  EXPECT_FALSE(ParseIbState("ACTIVE", "state").ok());
  EXPECT_FALSE(ParseIbState("x: ACTIVE", "state").ok());
}

TEST(SysfsValuesTest, IbRateInBytesPerSecond) {
  EXPECT_DOUBLE_EQ(*ParseIbRateBytes("200 Gb/sec (4X HDR)\n", "rate"), 25e9);
  EXPECT_DOUBLE_EQ(*ParseIbRateBytes("2.5 Gb/sec (1X SDR)", "rate"), 312.5e6);
  EXPECT_DOUBLE_EQ(*ParseIbRateBytes("100 Gb/sec (2X HDR)", "rate"), 12.5e9);
  EXPECT_FALSE(ParseIbRateBytes("fast", "rate").ok());
  EXPECT_FALSE(ParseIbRateBytes("100 Mb/sec", "rate").ok());
}

TEST(SysfsValuesTest, PciAddresses) {
  EXPECT_TRUE(IsPciAddress("0000:3b:00.0"));
  // Intel VMD puts devices in 5-digit domains.
  EXPECT_TRUE(IsPciAddress("10000:00:01.7"));
  EXPECT_FALSE(IsPciAddress("0000:3b:00.8"));
  EXPECT_FALSE(IsPciAddress("virtio2"));
  EXPECT_FALSE(IsPciAddress(""));
  EXPECT_EQ(PciAddressInPath("../../../0000:3b:00.1"), "0000:3b:00.1");
  EXPECT_EQ(PciAddressInPath("../../../devices/pci0000:00/0000:00:03.0/virtio2"), "0000:00:03.0");
  EXPECT_EQ(PciAddressInPath("/sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/net/ens1f0np0"),
            "0000:3b:00.0");
  EXPECT_EQ(PciAddressInPath("../../../virtio2"), "");
}

}  // namespace
}  // namespace fabric
