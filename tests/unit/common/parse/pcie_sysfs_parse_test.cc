#include "common/parse/pcie_sysfs_parse.h"

#include <gtest/gtest.h>

namespace fabric {
namespace {

TEST(PcieSysfsParseTest, Addresses) {
  auto a = ParsePciAddress("0000:c1:00.1");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->domain, 0u);
  EXPECT_EQ(a->bus, 0xc1u);
  EXPECT_EQ(a->device, 0u);
  EXPECT_EQ(a->function, 1u);
  auto wide = ParsePciAddress("10000:01:1f.7");  // VMD domains are 5 digits.
  ASSERT_TRUE(wide);
  EXPECT_EQ(wide->domain, 0x10000u);
  for (const char* bad : {"", "pci0000:00", "0000:00:00", "00:00.0", "0000:0g:00.0", "0000:00:20.0",
                          "0000:00:00.8", "0000:000:00.0", "virtio2"}) {
    EXPECT_FALSE(IsPciAddress(bad)) << bad;
  }
}

TEST(PcieSysfsParseTest, AddressesInADeviceLinkTarget) {
  EXPECT_EQ(
      PciAddressesInPath("../../../devices/pci0000:00/0000:00:01.1/0000:01:00.0/"
                         "0000:02:00.0/0000:03:00.0"),
      (std::vector<std::string>{"0000:00:01.1", "0000:01:00.0", "0000:02:00.0", "0000:03:00.0"}));
  // A virtio netdev: the PCI device is two components above the interface.
  EXPECT_EQ(PciAddressesInPath("../../devices/pci0000:00/0000:00:03.0/virtio2/net/eth0"),
            (std::vector<std::string>{"0000:00:03.0"}));
  EXPECT_TRUE(PciAddressesInPath("../../devices/virtual/net/lo").empty());
  EXPECT_TRUE(PciAddressesInPath("").empty());
}

TEST(PcieSysfsParseTest, LinkSpeedInEveryKernelSpelling) {
  struct Case {
    const char* text;
    std::optional<double> gts;
  };
  const Case cases[] = {
      {"2.5 GT/s PCIe\n", 2.5},
      {"5.0 GT/s PCIe", 5.0},
      {"8.0 GT/s PCIe", 8.0},
      {"16.0 GT/s PCIe", 16.0},
      {"32.0 GT/s PCIe", 32.0},
      {"64.0 GT/s PCIe", 64.0},
      {"2.5 GT/s", 2.5},
      {"5 GT/s", 5.0},
      {"8 GT/s", 8.0},
      {"Unknown", std::nullopt},
      {"Unknown speed", std::nullopt},
      {"", std::nullopt},
  };
  for (const auto& c : cases) {
    auto speed = ParseLinkSpeed(c.text, "current_link_speed");
    ASSERT_TRUE(speed.ok()) << c.text;
    EXPECT_EQ(*speed, c.gts) << c.text;
  }
}

TEST(PcieSysfsParseTest, BrokenLinkSpeedIsAnErrorNamingTheFile) {
  for (const char* bad : {"fast", "16.0 Gb/s", "16.0 GT/s PCIe extra", "-8 GT/s", "GT/s"}) {
    auto speed = ParseLinkSpeed(bad, "/sys/x/max_link_speed");
    ASSERT_FALSE(speed.ok()) << bad;
    EXPECT_NE(speed.error().message.find("/sys/x/max_link_speed"), std::string::npos);
  }
}

TEST(PcieSysfsParseTest, LinkWidth) {
  EXPECT_EQ(*ParseLinkWidth("16\n", "w"), std::optional<int>(16));
  EXPECT_EQ(*ParseLinkWidth("1", "w"), std::optional<int>(1));
  EXPECT_EQ(*ParseLinkWidth("0", "w"), std::nullopt);  // Link down.
  EXPECT_FALSE(ParseLinkWidth("x16", "w").ok());
  EXPECT_FALSE(ParseLinkWidth("64", "w").ok());
  EXPECT_FALSE(ParseLinkWidth("", "w").ok());
}

TEST(PcieSysfsParseTest, HexIds) {
  EXPECT_EQ(*ParseHexId("0x15b3\n", "vendor"), 0x15b3u);
  EXPECT_EQ(*ParseHexId("0x020700", "class"), 0x020700u);
  EXPECT_FALSE(ParseHexId("15b3", "vendor").ok());
  EXPECT_FALSE(ParseHexId("0x", "vendor").ok());
  EXPECT_FALSE(ParseHexId("0xzz", "vendor").ok());
}

TEST(PcieSysfsParseTest, AerCounters) {
  auto aer = ParseAerCounters("RxErr 12\nBadTLP 3\nBadDLLP 0\nTOTAL_ERR_COR 15\n", "aer");
  ASSERT_TRUE(aer.ok());
  ASSERT_EQ(aer->by_type.size(), 3u);
  EXPECT_EQ(aer->by_type[0], (std::pair<std::string, uint64_t>{"RxErr", 12}));
  EXPECT_EQ(aer->total, std::optional<uint64_t>(15));
  // Kernels before the TOTAL_ line had only per-type counters.
  auto old = ParseAerCounters("RxErr 1\n", "aer");
  ASSERT_TRUE(old.ok());
  EXPECT_FALSE(old->total);
}

TEST(PcieSysfsParseTest, BrokenAerLineNamesFileAndLine) {
  auto aer = ParseAerCounters("RxErr 1\nBadTLP many\n", "/sys/d/aer_dev_correctable");
  ASSERT_FALSE(aer.ok());
  EXPECT_NE(aer.error().message.find("/sys/d/aer_dev_correctable:2:"), std::string::npos);
  EXPECT_FALSE(ParseAerCounters("RxErr\n", "aer").ok());
  EXPECT_FALSE(ParseAerCounters("RxErr 1 2\n", "aer").ok());
}

}  // namespace
}  // namespace fabric
