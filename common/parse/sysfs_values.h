// Parsers for sysfs attribute values of network and RDMA devices: InfiniBand
// port state and rate strings, and PCI addresses in device link targets.
// Pure: no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/parse/pcie_sysfs_parse.h"  // IsPciAddress
#include "common/result.h"

namespace fabric {

// "4: ACTIVE" (ports/N/state, phys_state) -> {4, "ACTIVE"}.
struct IbStateValue {
  int64_t code;
  std::string name;
};
Result<IbStateValue> ParseIbState(std::string_view text, std::string_view source);

// "100 Gb/sec (4X EDR)" or "2.5 Gb/sec (1X SDR)" -> bytes per second.
Result<double> ParseIbRateBytes(std::string_view text, std::string_view source);

// The PCI address nearest the end of a sysfs device path or link target:
// "../../../devices/pci0000:00/0000:00:03.0/virtio2" -> "0000:00:03.0", so a
// virtio or auxiliary device maps to its PCI function. Empty when none.
std::string PciAddressInPath(std::string_view path);

}  // namespace fabric
