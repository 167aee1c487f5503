#include "exporter/pcie/pcie_bandwidth.h"

#include <gtest/gtest.h>

namespace fabric {
namespace {

// Hand-computed: GT/s x encoding x lanes gives bits per second of payload.
struct Case {
  double gts;
  int lanes;
  double gigabits;  // Expected, Gb/s.
};

TEST(PcieBandwidthTest, EveryGenerationMatchesHandComputedValues) {
  const Case cases[] = {
      {2.5, 1, 2.0},                   // Gen1: 2.5 x 8/10
      {2.5, 16, 32.0},                 //
      {5.0, 1, 4.0},                   // Gen2: 5 x 8/10
      {5.0, 8, 32.0},                  //
      {8.0, 1, 7.876923076923077},     // Gen3: 8 x 128/130
      {8.0, 16, 126.03076923076923},   //
      {16.0, 4, 63.01538461538462},    // Gen4 x4: the field's chipset slot, ~63.0
      {16.0, 8, 126.03076923076923},   //
      {16.0, 16, 252.06153846153848},  // Gen4 x16: ~252, carries 200 GbE
      {32.0, 16, 504.12307692307695},  // Gen5: 32 x 128/130
      {64.0, 1, 60.5},                 // Gen6 FLIT: 64 x 242/256
      {64.0, 16, 968.0},               //
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(testing::Message() << c.gts << " GT/s x" << c.lanes);
    EXPECT_NEAR(PcieLinkBytesPerSecond(c.gts, c.lanes) * 8 / 1e9, c.gigabits, 1e-9);
  }
}

TEST(PcieBandwidthTest, TheFieldCaseCannotCarry200GbE) {
  const double line_rate_bytes = 200e9 / 8;  // 25 GB/s.
  EXPECT_LT(PcieLinkBytesPerSecond(16.0, 4), line_rate_bytes);
  EXPECT_NEAR(PcieLinkBytesPerSecond(16.0, 4), 7.8769e9, 1e5);
  EXPECT_GT(PcieLinkBytesPerSecond(16.0, 16), line_rate_bytes);
  // The twin path ran 198 Gb/s; the x4 slot capped at 58, below its 63.
  EXPECT_LT(58e9, PcieLinkBytesPerSecond(16.0, 4) * 8);
}

TEST(PcieBandwidthTest, EncodingChangesAtGen3AndGen6) {
  EXPECT_DOUBLE_EQ(PcieEncodingEfficiency(2.5), 0.8);
  EXPECT_DOUBLE_EQ(PcieEncodingEfficiency(5.0), 0.8);
  EXPECT_DOUBLE_EQ(PcieEncodingEfficiency(8.0), 128.0 / 130.0);
  EXPECT_DOUBLE_EQ(PcieEncodingEfficiency(32.0), 128.0 / 130.0);
  EXPECT_DOUBLE_EQ(PcieEncodingEfficiency(64.0), 242.0 / 256.0);
}

}  // namespace
}  // namespace fabric
