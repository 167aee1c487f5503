// The libpci backend over `lspci -xxxx` dumps: the fixture trees' files and
// broken ones, which must come back as errors instead of libpci's default
// exit().
#include <gtest/gtest.h>

#include "exporter/backends/pci_config_space.h"
#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

const std::string kFixtures = std::string(FABRIC_SOURCE_DIR) + "/tests/fixtures/";

TEST(LibpciConfigSpaceTest, ReadsTheRealH200Dump) {
  auto config = MakeLibpciDump(kFixtures + "h200/lspci-xxxx.txt", kFixtures + "pci.ids");
  ASSERT_NE(config, nullptr);
  auto regs = config->ReadExpress({"0000:00:06.0", "0000:00:03.0", "0000:00:1f.0"});
  ASSERT_TRUE(regs.ok()) << regs.error().message;
  // virtio (00:03.0) has no Express capability; 00:1f.0 is not in the dump.
  ASSERT_EQ(regs->size(), 1u);
  auto info = DecodeExpress(regs->at("0000:00:06.0"));
  EXPECT_EQ(info.port_type, 0);  // lspci: "Express (v2) Endpoint"
  EXPECT_EQ(info.version, 2);
  EXPECT_EQ(info.current_speed_gts, 32.0);  // "LnkSta: Speed 32GT/s, Width x16"
  EXPECT_EQ(info.current_width, 16);
  EXPECT_EQ(info.max_speed_gts, 32.0);
  EXPECT_EQ(info.max_width, 16);
}

TEST(LibpciConfigSpaceTest, ReadsSwitchPortTypesAndSlots) {
  auto config = MakeLibpciDump(kFixtures + "pcie-switch/lspci-xxxx.txt", "");
  auto regs = config->ReadExpress({"0000:00:01.1", "0000:01:00.0", "0000:02:01.0", "0000:04:00.0"});
  ASSERT_TRUE(regs.ok()) << regs.error().message;
  ASSERT_EQ(regs->size(), 4u);
  EXPECT_EQ(DecodeExpress(regs->at("0000:00:01.1")).port_type, 4);
  auto usp = DecodeExpress(regs->at("0000:01:00.0"));
  EXPECT_EQ(usp.port_type, 5);
  EXPECT_EQ(usp.current_width, 8);
  EXPECT_EQ(usp.max_width, 16);
  auto dsp = DecodeExpress(regs->at("0000:02:01.0"));
  EXPECT_EQ(dsp.port_type, 6);
  EXPECT_EQ(dsp.physical_slot, 3u);
  EXPECT_EQ(dsp.slot_power_limit_watts, 25.0);
  EXPECT_EQ(DecodeExpress(regs->at("0000:04:00.0")).max_width, 4);
}

TEST(LibpciConfigSpaceTest, NamesComeFromTheGivenPciIds) {
  auto config = MakeLibpciDump(kFixtures + "pcie-healthy/lspci-xxxx.txt", kFixtures + "pci.ids");
  auto names = config->Names(0x15b3, 0x101b, 0x020000);
  EXPECT_EQ(names.vendor, "Mellanox Technologies");
  EXPECT_EQ(names.device, "MT28908 Family [ConnectX-6]");
  EXPECT_EQ(names.class_name, "Ethernet controller");
  auto unknown = config->Names(0x10de, 0x2335, 0x030200);  // H200: newer than this pci.ids.
  EXPECT_EQ(unknown.vendor, "NVIDIA Corporation");
  EXPECT_EQ(unknown.device, "");
  EXPECT_EQ(config->Names(0xfffe, 0x0001, 0xfe0000).vendor, "");
}

TEST(LibpciConfigSpaceTest, MissingAndMalformedDumpsAreErrorsNotExits) {
  testing::TestDir dir;
  auto missing = MakeLibpciDump((dir.path() / "nope.txt").string(), "");
  auto r1 = missing->ReadExpress({"0000:00:00.0"});
  ASSERT_FALSE(r1.ok());
  EXPECT_NE(r1.error().message.find("nope.txt"), std::string::npos) << r1.error().message;

  auto malformed = MakeLibpciDump(dir.Write("bad.txt", "00:00.0 Host bridge\n00: 86 80 zz\n"), "");
  auto r2 = malformed->ReadExpress({"0000:00:00.0"});
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().message.find("libpci"), std::string::npos);
  // The trap is reusable: a good read after a failed one works.
  auto good = MakeLibpciDump(kFixtures + "h200/lspci-xxxx.txt", "");
  EXPECT_TRUE(good->ReadExpress({"0000:00:06.0"}).ok());
  // Names do not depend on the device source.
  auto names_only = MakeLibpciDump((dir.path() / "nope.txt").string(), kFixtures + "pci.ids");
  EXPECT_EQ(names_only->Names(0x15b3, 0x101b, 0x020000).vendor, "Mellanox Technologies");
  // A missing pci.ids gives empty names, not a failure.
  auto no_ids = MakeLibpciDump(kFixtures + "h200/lspci-xxxx.txt", (dir.path() / "no.ids").string());
  EXPECT_EQ(no_ids->Names(0x15b3, 0x101b, 0x020000).vendor, "");
}

TEST(LibpciConfigSpaceTest, SysfsMethodWithoutConfigFilesFindsNothing) {
  // What a fixture tree (or a host where `config` is unreadable) looks like:
  // no Express capability, so the collector falls back to sysfs attributes.
  auto config = MakeLibpciSysfs(kFixtures + "pcie-downtrained-x8/sys/bus/pci", "");
  auto regs = config->ReadExpress({"0000:c1:00.0"});
  ASSERT_TRUE(regs.ok()) << regs.error().message;
  EXPECT_TRUE(regs->empty());
}

TEST(LibpciConfigSpaceTest, SysfsMethodReadsAConfigFileLikeTheKernelsOwn) {
  // A `config` file holding only the 64-byte header, as an unprivileged
  // reader gets it: the capability pointer leads past the end.
  testing::TestDir dir;
  std::string header(64, '\0');
  header[0] = '\xb3', header[1] = '\x15', header[2] = '\x1b', header[3] = '\x10';
  header[6] = 0x10;  // Capability list.
  header[0x34] = 0x40;
  dir.Write("bus/pci/devices/0000:41:00.0/config", header);
  auto short_config = MakeLibpciSysfs((dir.path() / "bus/pci").string(), "");
  auto none = short_config->ReadExpress({"0000:41:00.0"});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());

  // The same with the Express capability readable (what root gets).
  std::string full = header + std::string(192, '\0');
  auto put16 = [&full](size_t at, uint16_t v) {
    full[at] = static_cast<char>(v & 0xff);
    full[at + 1] = static_cast<char>(v >> 8);
  };
  put16(0x40, 0x0010);         // PCI_CAP_ID_EXP, no next capability
  put16(0x42, 0x0002);         // v2 endpoint
  put16(0x4c, 4 | (16 << 4));  // LnkCap: Gen4 x16
  put16(0x52, 4 | (8 << 4));   // LnkSta: Gen4 x8
  dir.Write("bus/pci/devices/0000:41:00.0/config", full);
  auto regs = short_config->ReadExpress({"0000:41:00.0"});
  ASSERT_TRUE(regs.ok());
  ASSERT_EQ(regs->size(), 1u);
  auto info = DecodeExpress(regs->at("0000:41:00.0"));
  EXPECT_EQ(info.max_width, 16);
  EXPECT_EQ(info.current_width, 8);
  EXPECT_EQ(info.current_speed_gts, 16.0);
}

}  // namespace
}  // namespace fabric
