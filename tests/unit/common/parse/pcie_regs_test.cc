#include "common/parse/pcie_regs.h"

#include <gtest/gtest.h>

namespace fabric {
namespace {

// LnkCap: speed code bits 3:0, width bits 9:4. LnkSta likewise.
constexpr uint32_t Link(uint32_t code, uint32_t width) { return code | (width << 4); }

TEST(PcieRegsTest, RootPortWithSlotHardwiredX4) {
  ExpressRegisters r;
  r.flags = 0x2 | (4 << 4) | 0x100;                   // v2 root port, slot implemented
  r.link_cap = Link(4, 4) | (28u << 24);              // Gen4 x4, port 28
  r.link_status = static_cast<uint16_t>(Link(4, 4));  // trained Gen4 x4
  r.slot_cap = (25u << 7) | (0u << 15) | (4u << 19);  // 25 W, slot 4
  r.link_cap2 = 0b11110;                              // 2.5-16 GT/s
  auto info = DecodeExpress(r);
  EXPECT_EQ(info.version, 2);
  EXPECT_EQ(info.port_type, 4);
  EXPECT_EQ(PortTypeName(info.port_type), "root_port");
  EXPECT_FALSE(IsUpstreamFacing(info.port_type));
  EXPECT_EQ(info.max_speed_gts, 16.0);
  EXPECT_EQ(info.max_width, 4);
  EXPECT_EQ(info.current_speed_gts, 16.0);
  EXPECT_EQ(info.current_width, 4);
  EXPECT_EQ(info.physical_slot, 4u);
  EXPECT_EQ(info.slot_power_limit_watts, 25.0);
}

TEST(PcieRegsTest, LnkCap2VectorWinsOverLnkCap) {
  ExpressRegisters r;
  r.flags = 0x2;  // v2 endpoint
  r.link_cap = Link(4, 16);
  r.link_cap2 = 0b111110;  // up to 32 GT/s
  EXPECT_EQ(DecodeExpress(r).max_speed_gts, 32.0);
  r.link_cap2 = 0;  // Capability v1 or no vector: LnkCap's code.
  EXPECT_EQ(DecodeExpress(r).max_speed_gts, 16.0);
}

TEST(PcieRegsTest, LinkDownAndReservedCodesAreUnknown) {
  ExpressRegisters r;
  r.flags = 0x2 | (6 << 4);
  r.link_cap = Link(7, 16);  // Reserved speed code.
  r.link_status = 0;         // No link.
  auto info = DecodeExpress(r);
  EXPECT_FALSE(info.max_speed_gts);
  EXPECT_EQ(info.max_width, 16);
  EXPECT_FALSE(info.current_speed_gts);
  EXPECT_FALSE(info.current_width);
  EXPECT_FALSE(info.slot_implemented);
  EXPECT_FALSE(info.slot_power_limit_watts);
}

TEST(PcieRegsTest, SlotPowerScalesAndHighRange) {
  ExpressRegisters r;
  r.flags = 0x2 | (6 << 4) | 0x100;
  r.slot_cap = (250u << 7) | (1u << 15);  // 250 x 0.1 W
  EXPECT_DOUBLE_EQ(*DecodeExpress(r).slot_power_limit_watts, 25.0);
  r.slot_cap = 0xf1u << 7;  // 275 W encoding
  EXPECT_DOUBLE_EQ(*DecodeExpress(r).slot_power_limit_watts, 275.0);
}

TEST(PcieRegsTest, SpeedCodesAndPortTypes) {
  EXPECT_EQ(LinkSpeedCodeToGts(1), 2.5);
  EXPECT_EQ(LinkSpeedCodeToGts(2), 5.0);
  EXPECT_EQ(LinkSpeedCodeToGts(3), 8.0);
  EXPECT_EQ(LinkSpeedCodeToGts(4), 16.0);
  EXPECT_EQ(LinkSpeedCodeToGts(5), 32.0);
  EXPECT_EQ(LinkSpeedCodeToGts(6), 64.0);
  EXPECT_FALSE(LinkSpeedCodeToGts(0));
  EXPECT_TRUE(IsUpstreamFacing(0));  // endpoint
  EXPECT_TRUE(IsUpstreamFacing(5));  // switch upstream port
  EXPECT_TRUE(IsUpstreamFacing(7));  // PCIe-to-PCI bridge
  EXPECT_FALSE(IsUpstreamFacing(6));
  EXPECT_FALSE(IsUpstreamFacing(9));  // root complex integrated: no link
  EXPECT_EQ(PortTypeName(3), "unknown");
}

}  // namespace
}  // namespace fabric
