// The pcie collector in-process over the fixture trees and over broken
// sysfs trees written on the fly.
#include "exporter/collectors/pcie_collector.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "exporter/config/config_node.h"
#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

const std::string kFixtures = std::string(FABRIC_SOURCE_DIR) + "/tests/fixtures/";

using Samples = std::map<std::string, double>;  // "name{a=\"b\",...}" -> value

Samples Scrape(Collector& collector, Status* status = nullptr) {
  MetricSink sink;
  Status s = collector.Collect(sink);
  if (status != nullptr) *status = s;
  EXPECT_TRUE(status != nullptr || s.ok()) << (s.ok() ? "" : s.error().message);
  Samples out;
  for (const auto& family : sink.TakeSorted()) {
    for (const auto& m : family.metric) {
      std::string key = family.name + "{";
      for (const auto& l : m.label) key += l.name + "=\"" + l.value + "\",";
      key += "}";
      out[key] = family.type == prometheus::MetricType::Counter ? m.counter.value : m.gauge.value;
    }
  }
  return out;
}

std::unique_ptr<Collector> ForTree(const std::string& tree, const std::string& yaml_extra = "") {
  std::string dir = kFixtures + tree;
  std::string yaml = "pci_ids_file: ../pci.ids\n" + yaml_extra;
  if (std::filesystem::exists(dir + "/lspci-xxxx.txt"))
    yaml += "config_space_dump: lspci-xxxx.txt\n";
  static std::vector<std::unique_ptr<SysRoot>> roots;  // Outlive the collectors.
  static std::vector<std::unique_ptr<ConfigNode>> nodes;
  roots.push_back(std::make_unique<SysRoot>(dir + "/proc", dir + "/sys"));
  nodes.push_back(
      std::make_unique<ConfigNode>(ConfigNode::LoadString(yaml, dir + "/fabric_exporter.yml")));
  return MakePcieCollector(CollectorContext{*roots.back(), *nodes.back()});
}

double Get(const Samples& s, const std::string& key) {
  auto it = s.find(key);
  EXPECT_NE(it, s.end()) << "no sample " << key;
  return it == s.end() ? -1 : it->second;
}

TEST(PcieCollectorTest, FieldCaseX4SlotIsSlotLimitedBelow25GBps) {
  auto c = ForTree("pcie-x4-slot");
  auto s = Scrape(*c);
  EXPECT_EQ(Get(s, "fabric_pcie_path_slot_limited{address=\"0000:02:00.0\",}"), 1);
  EXPECT_EQ(Get(s, "fabric_pcie_path_slot_limited{address=\"0000:01:00.0\",}"), 0);
  EXPECT_LT(
      Get(s, "fabric_pcie_path_capable_bandwidth_bytes_per_second{address=\"0000:02:00.0\",}"),
      25e9);
  EXPECT_LT(
      Get(s, "fabric_pcie_path_current_bandwidth_bytes_per_second{address=\"0000:02:00.0\",}"),
      25e9);
  EXPECT_GT(
      Get(s, "fabric_pcie_path_current_bandwidth_bytes_per_second{address=\"0000:01:00.0\",}"),
      25e9);
  EXPECT_EQ(Get(s, "fabric_pcie_path_capable_width_lanes{address=\"0000:02:00.0\",}"), 4);
  EXPECT_EQ(Get(s, "fabric_pcie_path_downtrained_hops{address=\"0000:02:00.0\",}"), 0);
  EXPECT_EQ(Get(s, "fabric_pcie_netdev_info{address=\"0000:02:00.0\",device=\"enp2s0np0\",}"), 1);
}

TEST(PcieCollectorTest, X8LinkIsADowntrainedHopFromSysfsAlone) {
  auto c = ForTree("pcie-downtrained-x8");
  auto s = Scrape(*c);
  EXPECT_EQ(Get(s,
                "fabric_pcie_hop_downtrained{address=\"0000:c1:00.0\",dimension=\"width\","
                "upstream=\"0000:c0:03.1\",}"),
            1);
  EXPECT_EQ(Get(s, "fabric_pcie_path_downtrained_hops{address=\"0000:c1:00.0\",}"), 1);
  EXPECT_EQ(Get(s, "fabric_pcie_path_slot_limited{address=\"0000:c1:00.0\",}"), 0);
  EXPECT_EQ(
      Get(s, "fabric_pcie_aer_errors_total{address=\"0000:c1:00.0\",severity=\"correctable\",}"),
      1297);
  EXPECT_EQ(Get(s,
                "fabric_pcie_aer_errors_by_type_total{address=\"0000:c1:00.0\","
                "severity=\"correctable\",type=\"RxErr\",}"),
            1234);
  EXPECT_EQ(Get(s,
                "fabric_pcie_aer_rootport_errors_total{address=\"0000:c0:03.1\","
                "severity=\"correctable\",}"),
            1297);
}

TEST(PcieCollectorTest, HealthyGen5InGen4AndH200FlagNothing) {
  for (const char* tree : {"pcie-healthy", "pcie-gen5-in-gen4", "h200"}) {
    SCOPED_TRACE(tree);
    auto c = ForTree(tree);
    auto s = Scrape(*c);
    int paths = 0;
    for (const auto& [key, value] : s) {
      if (key.rfind("fabric_pcie_path_slot_limited{", 0) == 0 ||
          key.rfind("fabric_pcie_path_downtrained_hops{", 0) == 0 ||
          key.rfind("fabric_pcie_hop_downtrained{", 0) == 0) {
        EXPECT_EQ(value, 0) << key;
        ++paths;
      }
    }
    EXPECT_GT(paths, 0);
  }
}

TEST(PcieCollectorTest, H200GpuIsGen5X16) {
  auto c = ForTree("h200");
  auto s = Scrape(*c);
#ifdef FABRIC_HAVE_LIBPCI
  // With libpci the link comes from the capture's config space dump.
  int from_config = 0;
  for (const auto& [key, value] : s) {
    if (key.find("fabric_pcie_device_info{address=\"0000:00:06.0\"") == 0 &&
        key.find("link_source=\"config\"") != std::string::npos) {
      ++from_config;
    }
  }
  EXPECT_EQ(from_config, 1);
#endif
  EXPECT_EQ(
      Get(s, "fabric_pcie_link_current_speed_transfers_per_second{address=\"0000:00:06.0\",}"),
      32e9);
  EXPECT_EQ(Get(s, "fabric_pcie_link_current_width_lanes{address=\"0000:00:06.0\",}"), 16);
  EXPECT_NEAR(
      Get(s, "fabric_pcie_path_current_bandwidth_bytes_per_second{address=\"0000:00:06.0\",}"),
      63.015e9, 1e6);
  // The virtio NIC is conventional PCI here: identity, but no path.
  EXPECT_EQ(Get(s, "fabric_pcie_path_hops{address=\"0000:00:03.0\",}"), 0);
  EXPECT_EQ(
      s.count("fabric_pcie_path_current_bandwidth_bytes_per_second{address=\"0000:00:03.0\",}"),
      0u);
}

TEST(PcieCollectorTest, ClassFilterAndVirtualFunctions) {
  auto nvme_only = ForTree("pcie-switch", "classes: [\"0x0108\"]\n");
  auto s = Scrape(*nvme_only);
  EXPECT_EQ(s.count("fabric_pcie_path_hops{address=\"0000:04:00.0\",}"), 1u);
  EXPECT_EQ(s.count("fabric_pcie_path_hops{address=\"0000:03:00.0\",}"), 0u);
  // Only the NVMe drive's own ports are on its path.
  EXPECT_EQ(s.count("fabric_pcie_link_max_width_lanes{address=\"0000:02:00.0\",}"), 0u);
  EXPECT_EQ(s.count("fabric_pcie_link_max_width_lanes{address=\"0000:02:01.0\",}"), 1u);

  auto defaults = Scrape(*ForTree("pcie-healthy"));
  EXPECT_EQ(defaults.count("fabric_pcie_path_hops{address=\"0000:41:00.2\",}"), 0u);
  auto with_vfs = Scrape(*ForTree("pcie-healthy", "virtual_functions: true\n"));
  EXPECT_EQ(with_vfs.count("fabric_pcie_path_hops{address=\"0000:41:00.2\",}"), 1u);
}

TEST(PcieCollectorTest, AerTypesCanBeTurnedOff) {
  auto s = Scrape(*ForTree("pcie-downtrained-x8", "aer_types: false\n"));
  for (const auto& [key, value] : s) {
    EXPECT_NE(key.rfind("fabric_pcie_aer_errors_by_type_total", 0), 0u) << key;
  }
  EXPECT_EQ(s.count("fabric_pcie_aer_errors_total{address=\"0000:c1:00.0\",severity=\"fatal\",}"),
            1u);
}

TEST(PcieCollectorTest, BadSettingsNameFileLineAndKey) {
  SysRoot root("/nonexistent/proc", "/nonexistent/sys");
  for (const char* yaml :
       {"classes: [\"0x2\"]\n", "classes: [\"net\"]\n", "classes: 3\n", "aer_types: maybe\n"}) {
    auto node = ConfigNode::LoadString(std::string("x: 1\n") + yaml, "pcie.yml");
    try {
      MakePcieCollector(CollectorContext{root, node});
      ADD_FAILURE() << "accepted " << yaml;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("pcie.yml:2:"), std::string::npos) << e.what();
    }
  }
}

TEST(PcieCollectorTest, NoPciBusIsSuccessWithoutSamples) {
  testing::TestDir dir;
  SysRoot root((dir.path() / "proc").string(), (dir.path() / "sys").string());
  ConfigNode empty;
  auto c = MakePcieCollector(CollectorContext{root, empty});
  MetricSink sink;
  EXPECT_TRUE(c->Collect(sink).ok());
  EXPECT_TRUE(sink.empty());
}

constexpr char kBrokenNic[] = "0000:00:02.0";
constexpr char kHealthyNic[] = "0000:00:03.0";

// Two NICs on their own root ports, each with a Gen4 x16 link, AER counters
// and L0s/L1 ASPM states; `extra` (path under the broken NIC's directory ->
// content) then overwrites or adds files of kBrokenNic.
std::string TwoNics(testing::TestDir& dir, const std::map<std::string, std::string>& extra) {
  std::filesystem::create_directories(dir.path() / "sys/bus/pci/devices");
  for (const char* a : {kBrokenNic, kHealthyNic}) {
    const std::string d = std::string("sys/devices/pci0000:00/") + a;
    std::filesystem::create_directories(dir.path() / d);
    dir.Write(d + "/class", "0x020000\n");
    dir.Write(d + "/current_link_speed", "16.0 GT/s PCIe\n");
    dir.Write(d + "/current_link_width", "16\n");
    dir.Write(d + "/aer_dev_correctable", "RxErr 3\nBadTLP 0\nTOTAL_ERR_COR 3\n");
    dir.Write(d + "/aer_dev_fatal", "TOTAL_ERR_FATAL 0\n");
    dir.Write(d + "/link/l0s_aspm", "0\n");
    dir.Write(d + "/link/l1_aspm", "1\n");
    std::filesystem::create_directory_symlink(std::string("../../../devices/pci0000:00/") + a,
                                              dir.path() / "sys/bus/pci/devices" / a);
  }
  for (const auto& [file, text] : extra) {
    dir.Write(std::string("sys/devices/pci0000:00/") + kBrokenNic + "/" + file, text);
  }
  return dir.path().string();
}

Samples ScrapeTree(const std::string& tree) {
  SysRoot root(tree + "/proc", tree + "/sys");
  auto node = ConfigNode::LoadString("config_space: false\nlink_sampler: off\n", "x.yml");
  auto c = MakePcieCollector(CollectorContext{root, node});
  Status status = OkStatus();
  Samples got = Scrape(*c, &status);
  EXPECT_TRUE(status.ok()) << status.error().message;
  return got;
}

// The pcie series (not the error series) of one device, by name and labels.
std::vector<std::string> SeriesOf(const Samples& got, const std::string& address) {
  std::vector<std::string> out;
  for (const auto& [key, value] : got) {
    if (key.rfind("fabric_pcie_", 0) == 0 && key.find("\"" + address + "\"") != std::string::npos) {
      out.push_back(key);
    }
  }
  return out;
}

bool HasPrefix(const std::vector<std::string>& keys, const std::string& prefix) {
  for (const auto& k : keys) {
    if (k.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

std::string ErrorKey(const std::string& address, const std::string& source) {
  return "fabric_collector_device_errors{collector=\"pcie\",device=\"" + address + "\",source=\"" +
         source + "\",}";
}

// Both NICs read cleanly: every family there, no error series (the baseline
// the isolation tests below break one file of).
TEST(PcieCollectorTest, TwoHealthyNicsHaveEveryFamilyAndNoErrors) {
  testing::TestDir dir;
  Samples got = ScrapeTree(TwoNics(dir, {}));
  for (const char* a : {kBrokenNic, kHealthyNic}) {
    auto series = SeriesOf(got, a);
    EXPECT_TRUE(HasPrefix(series, "fabric_pcie_link_current_speed_transfers_per_second{")) << a;
    EXPECT_TRUE(HasPrefix(series, "fabric_pcie_path_hops{")) << a;
    EXPECT_EQ(Get(got, "fabric_pcie_aer_errors_total{address=\"" + std::string(a) +
                           "\",severity=\"correctable\",}"),
              3)
        << a;
    EXPECT_EQ(
        Get(got, "fabric_pcie_link_aspm_enabled{address=\"" + std::string(a) + "\",state=\"l1\",}"),
        1)
        << a;
  }
  for (const auto& [key, value] : got) {
    EXPECT_NE(key.rfind("fabric_collector_device_errors", 0), 0u) << key;
  }
}

// A garbage AER counter file drops that NIC's AER family only: its link,
// path and ASPM series stay, the other NIC keeps everything, and the error
// series names the NIC and source "aer" (not "sysfs": the device is not
// left out).
TEST(PcieCollectorTest, GarbageAerCounterDropsOnlyThatDevicesAer) {
  testing::TestDir dir;
  Samples got = ScrapeTree(TwoNics(dir, {{"aer_dev_fatal", "TOTAL_ERR_FATAL many\n"}}));
  EXPECT_EQ(got.count(ErrorKey(kBrokenNic, "aer")), 1u);
  EXPECT_EQ(got.count(ErrorKey(kBrokenNic, "sysfs")), 0u);
  EXPECT_EQ(got.count(ErrorKey(kHealthyNic, "aer")), 0u);
  auto broken = SeriesOf(got, kBrokenNic);
  EXPECT_FALSE(HasPrefix(broken, "fabric_pcie_aer_")) << "the correctable file parsed, but the "
                                                         "family goes whole";
  EXPECT_EQ(Get(got, "fabric_pcie_link_current_width_lanes{address=\"0000:00:02.0\",}"), 16);
  EXPECT_TRUE(HasPrefix(broken, "fabric_pcie_path_hops{"));
  EXPECT_TRUE(HasPrefix(broken, "fabric_pcie_link_aspm_enabled{"));
  EXPECT_EQ(Get(got,
                "fabric_pcie_aer_errors_total{address=\"0000:00:03.0\",severity="
                "\"correctable\",}"),
            3);
}

// A root port's garbage aer_rootport_total_err_* is the same AER family.
TEST(PcieCollectorTest, GarbageRootportAerTotalIsAnAerFailure) {
  testing::TestDir dir;
  Samples got = ScrapeTree(TwoNics(dir, {{"aer_rootport_total_err_cor", "-1\n"}}));
  EXPECT_EQ(got.count(ErrorKey(kBrokenNic, "aer")), 1u);
  EXPECT_FALSE(HasPrefix(SeriesOf(got, kBrokenNic), "fabric_pcie_aer_"));
  EXPECT_TRUE(HasPrefix(SeriesOf(got, kBrokenNic), "fabric_pcie_link_current_width_lanes{"));
}

// A garbage ASPM state file drops that NIC's ASPM family only; its link and
// AER series and the other NIC's ASPM states stay.
TEST(PcieCollectorTest, GarbageAspmStateDropsOnlyThatDevicesAspm) {
  testing::TestDir dir;
  Samples got = ScrapeTree(TwoNics(dir, {{"link/l1_1_aspm", "enabled\n"}}));
  EXPECT_EQ(got.count(ErrorKey(kBrokenNic, "aspm")), 1u);
  EXPECT_EQ(got.count(ErrorKey(kBrokenNic, "sysfs")), 0u);
  auto broken = SeriesOf(got, kBrokenNic);
  EXPECT_FALSE(HasPrefix(broken, "fabric_pcie_link_aspm_enabled{"))
      << "l0s and l1 parsed, but the family goes whole";
  EXPECT_EQ(Get(got,
                "fabric_pcie_link_current_speed_transfers_per_second{address="
                "\"0000:00:02.0\",}"),
            16e9);
  EXPECT_TRUE(HasPrefix(broken, "fabric_pcie_path_hops{"));
  EXPECT_TRUE(HasPrefix(broken, "fabric_pcie_aer_errors_total{"));
  EXPECT_EQ(Get(got, "fabric_pcie_link_aspm_enabled{address=\"0000:00:03.0\",state=\"l1\",}"), 1);
  EXPECT_EQ(got.count(ErrorKey(kHealthyNic, "aspm")), 0u);
}

// Files the kernel legitimately does not create are no failure: a device
// without AER (no aer_dev_*), without ASPM (no link/ directory), or whose
// link has no L1 substates (l0s and l1 only) reads cleanly.
TEST(PcieCollectorTest, AbsentAerAndAspmFilesAreNoError) {
  testing::TestDir dir;
  std::string tree = TwoNics(dir, {});
  const std::string d = tree + "/sys/devices/pci0000:00/" + kBrokenNic;
  std::filesystem::remove(d + "/aer_dev_correctable");
  std::filesystem::remove(d + "/aer_dev_fatal");
  std::filesystem::remove_all(d + "/link");
  Samples got = ScrapeTree(tree);
  for (const auto& [key, value] : got) {
    EXPECT_NE(key.rfind("fabric_collector_device_errors", 0), 0u) << key;
  }
  auto broken = SeriesOf(got, kBrokenNic);
  EXPECT_FALSE(HasPrefix(broken, "fabric_pcie_aer_"));
  EXPECT_FALSE(HasPrefix(broken, "fabric_pcie_link_aspm_enabled{"));
  EXPECT_TRUE(HasPrefix(broken, "fabric_pcie_link_current_width_lanes{"));
  // The healthy NIC has l0s and l1 only: those two states, no l1_1/l1_2.
  EXPECT_EQ(got.count("fabric_pcie_link_aspm_enabled{address=\"0000:00:03.0\",state=\"l0s\",}"),
            1u);
  EXPECT_EQ(got.count("fabric_pcie_link_aspm_enabled{address=\"0000:00:03.0\",state=\"l1_1\",}"),
            0u);
}

// A device whose link speed is garbage is left out, named in the error
// series; a second NIC on its own root port keeps its series.
TEST(PcieCollectorTest, GarbageLinkSpeedLeavesOutOnlyThatDevice) {
  testing::TestDir dir;
  Samples got = ScrapeTree(TwoNics(dir, {{"current_link_speed", "warp 9\n"}}));
  EXPECT_EQ(got.count("fabric_collector_device_errors{collector=\"pcie\",device=\"0000:00:02.0\","
                      "source=\"sysfs\",}"),
            1u);
  bool other = false, broken = false;
  for (const auto& [key, value] : got) {
    if (key.rfind("fabric_pcie_", 0) != 0) continue;
    other = other || key.find("\"0000:00:03.0\"") != std::string::npos;
    broken = broken || key.find("\"0000:00:02.0\"") != std::string::npos;
  }
  EXPECT_TRUE(other) << "the healthy NIC's series stay";
  EXPECT_FALSE(broken) << "the broken NIC is left out";
}

}  // namespace
}  // namespace fabric

namespace fabric {
namespace {

TEST(PcieCollectorTest, UnreadableConfigSpaceFallsBackToSysfs) {
  auto c = ForTree("pcie-downtrained-x8", "config_space_dump: missing-lspci-xxxx.txt\n");
  for (int scrape = 0; scrape < 2; ++scrape) {  // The warning is logged once.
    auto s = Scrape(*c);
    EXPECT_EQ(Get(s, "fabric_pcie_path_downtrained_hops{address=\"0000:c1:00.0\",}"), 1);
  }
}

}  // namespace
}  // namespace fabric

#ifdef FABRIC_HAVE_LIBPCI
namespace fabric {
namespace {

// A device whose LnkCap speed code this build cannot decode (reserved code 7,
// no LnkCap2 vector): the link comes from config space where it can, from
// sysfs for the rest.
TEST(PcieCollectorTest, SysfsFillsWhatConfigSpaceCannotDecode) {
  testing::TestDir dir;
  const std::string dev = "sys/devices/pci0000:00/0000:00:02.0/";
  dir.Write(dev + "class", "0x020000\n");
  dir.Write(dev + "max_link_speed", "64.0 GT/s PCIe\n");
  dir.Write(dev + "max_link_width", "16\n");
  dir.Write(dev + "current_link_speed", "64.0 GT/s PCIe\n");
  dir.Write(dev + "current_link_width", "16\n");
  std::filesystem::create_directories(dir.path() / "sys/bus/pci/devices");
  std::filesystem::create_directory_symlink("../../../devices/pci0000:00/0000:00:02.0",
                                            dir.path() / "sys/bus/pci/devices/0000:00:02.0");
  // Config space: Express v2 endpoint at 0x40, LnkCap code 7 x16, LnkSta
  // code 7 x16.
  std::string dump = "00:02.0 Class 0200: Device 15b3:1023\n";
  for (int row = 0; row < 16; ++row) {
    char line[64];
    std::snprintf(line, sizeof line, "%02x:", row * 16);
    dump += line;
    for (int col = 0; col < 16; ++col) {
      int at = row * 16 + col;
      int b = 0;
      if (at == 0x00) b = 0xb3;
      if (at == 0x01) b = 0x15;
      if (at == 0x02) b = 0x23;
      if (at == 0x03) b = 0x10;
      if (at == 0x06) b = 0x10;  // Capability list.
      if (at == 0x0b) b = 0x02;
      if (at == 0x34) b = 0x40;
      if (at == 0x40) b = 0x10;                // Express.
      if (at == 0x42) b = 0x02;                // v2 endpoint.
      if (at == 0x4c || at == 0x52) b = 0x07;  // Reserved speed code; width 16 low bits 0.
      if (at == 0x4d || at == 0x53) b = 0x01;  // Width 16 (bits 9:4).
      std::snprintf(line, sizeof line, " %02x", b);
      dump += line;
    }
    dump += "\n";
  }
  dir.Write("lspci-xxxx.txt", dump);
  SysRoot root((dir.path() / "proc").string(), (dir.path() / "sys").string());
  auto node = ConfigNode::LoadString("config_space_dump: lspci-xxxx.txt\n",
                                     (dir.path() / "fabric_exporter.yml").string());
  auto c = MakePcieCollector(CollectorContext{root, node});
  auto s = Scrape(*c);
  EXPECT_EQ(Get(s, "fabric_pcie_link_max_speed_transfers_per_second{address=\"0000:00:02.0\",}"),
            64e9);
  EXPECT_EQ(Get(s, "fabric_pcie_link_max_width_lanes{address=\"0000:00:02.0\",}"), 16);
  int from_config = 0;
  for (const auto& [key, value] : s) {
    if (key.find("port_type=\"endpoint\"") != std::string::npos &&
        key.find("link_source=\"config\"") != std::string::npos) {
      ++from_config;
    }
  }
  EXPECT_EQ(from_config, 1);
}

}  // namespace
}  // namespace fabric
#endif
