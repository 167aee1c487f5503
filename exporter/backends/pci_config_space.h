// PciConfigSpace: PCI configuration space and the pci.ids name database, the
// part of the PCIe collector that is not a sysfs attribute. The real backend
// is libpci (reading /sys/bus/pci/devices/*/config, which gives more than the
// 64-byte header only to CAP_SYS_ADMIN); the fixture backend is libpci too,
// reading an `lspci -xxxx` dump, so tests run the same parsing code.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/parse/pcie_regs.h"
#include "common/result.h"

namespace fabric {

struct PciNames {
  std::string vendor;  // Empty when pci.ids does not know the id.
  std::string device;
  std::string class_name;
};

class PciConfigSpace {
 public:
  virtual ~PciConfigSpace() = default;

  // The Express capability registers of each of `addresses` whose config
  // space is readable and has one. Devices missing from the result have no
  // Express capability, or config space beyond the header is not readable
  // (not root). An error means config space could not be read at all.
  virtual Result<std::map<std::string, ExpressRegisters>> ReadExpress(
      const std::vector<std::string>& addresses) = 0;

  // Names from pci.ids. `class_code` is the 24-bit class (0x020000).
  virtual PciNames Names(uint16_t vendor, uint16_t device, uint32_t class_code) = 0;

  // For the log and the _info series: "libpci-sysfs", "libpci-dump", "none".
  virtual std::string_view kind() const = 0;
};

// No config space and no names: builds without libpci, or
// collectors.pcie.config_space: false.
std::unique_ptr<PciConfigSpace> MakeNoPciConfigSpace();

// libpci through the sysfs method, reading `sysfs_bus_pci` (normally
// /sys/bus/pci). `ids_file` empty: libpci's default pci.ids. Null when the
// build has no libpci.
std::unique_ptr<PciConfigSpace> MakeLibpciSysfs(std::string sysfs_bus_pci, std::string ids_file);

// libpci's dump method over an `lspci -xxxx` file. Null without libpci.
std::unique_ptr<PciConfigSpace> MakeLibpciDump(std::string dump_file, std::string ids_file);

}  // namespace fabric
