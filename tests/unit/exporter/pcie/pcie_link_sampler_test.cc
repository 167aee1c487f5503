// The link sampler's counting (transitions, time below capable) and one live
// round over a tree whose current_link_* files the test rewrites between
// rounds, as a link that retrains would.
#include "exporter/pcie/pcie_link_sampler.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

TEST(PcieLinkTrackerTest, CountsTransitionsAndTimeBelowCapable) {
  PcieLinkTracker t;
  const PcieLinkCapability capable{32.0, 16};
  t.Add({0.0, 32.0, 16}, capable);
  t.Add({1.0, 16.0, 16}, capable);  // Down to Gen4: one speed transition.
  t.Add({3.0, 32.0, 16}, capable);  // Back: the second; 2 s were below.
  t.Add({4.0, 32.0, 8}, capable);
  t.Add({4.5, 32.0, 16}, capable);
  const PcieLinkCounts& c = t.counts();
  EXPECT_EQ(c.samples, 5u);
  EXPECT_EQ(c.speed_transitions, 2u);
  EXPECT_EQ(c.width_transitions, 2u);
  EXPECT_DOUBLE_EQ(c.below_speed_seconds, 2.0);
  EXPECT_DOUBLE_EQ(c.below_width_seconds, 0.5);
}

TEST(PcieLinkTrackerTest, UnknownCapabilityCountsNoTimeBelow) {
  PcieLinkTracker t;
  t.Add({0.0, 16.0, 8}, {});
  t.Add({1.0, 16.0, 8}, {});
  EXPECT_EQ(t.counts().speed_transitions, 0u);
  EXPECT_DOUBLE_EQ(t.counts().below_speed_seconds, 0.0);
  EXPECT_DOUBLE_EQ(t.counts().below_width_seconds, 0.0);
}

TEST(PcieLinkSamplerTest, LiveRoundsReadTheCurrentLink) {
  testing::TestDir dir;
  const std::string d = "sys/bus/pci/devices/0000:3b:00.0";
  auto link = [&](const char* speed, const char* width) {
    dir.Write(d + "/current_link_speed", speed);
    dir.Write(d + "/current_link_width", width);
  };
  link("16.0 GT/s PCIe\n", "16\n");
  SysRoot root((dir.path() / "proc").string(), (dir.path() / "sys").string());
  PcieLinkSampler sampler(root, PcieLinkSampler::Mode::kRecorded, std::chrono::milliseconds(500));
  sampler.SetTargets({{"0000:3b:00.0", PcieLinkCapability{16.0, 16}}});
  sampler.SampleOnce(0.0);
  link("8.0 GT/s PCIe\n", "16\n");
  sampler.SampleOnce(0.5);
  link("16.0 GT/s PCIe\n", "16\n");
  sampler.SampleOnce(1.0);
  auto counts = sampler.Counts();
  ASSERT_EQ(counts.count("0000:3b:00.0"), 1u);
  const PcieLinkCounts& c = counts.at("0000:3b:00.0");
  EXPECT_EQ(c.samples, 3u);
  EXPECT_EQ(c.speed_transitions, 2u);
  EXPECT_DOUBLE_EQ(c.below_speed_seconds, 0.5);
  sampler.SetTargets({});
  EXPECT_TRUE(sampler.Counts().empty()) << "a device no longer listed is dropped";
}

}  // namespace
}  // namespace fabric
