// Parsers for the PCI attributes sysfs shows under /sys/bus/pci/devices:
// device link targets (the topology), link speed and width strings in every
// kernel generation's spelling, hexadecimal ids and AER counter files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace fabric {

struct PciAddress {
  uint32_t domain = 0;
  uint32_t bus = 0;
  uint32_t device = 0;
  uint32_t function = 0;
};

// "0000:01:00.0" (domain:bus:device.function, hexadecimal; sysfs spelling).
std::optional<PciAddress> ParsePciAddress(std::string_view text);
bool IsPciAddress(std::string_view text);

// The PCI addresses in a sysfs device path or link target, root first:
// "../../../devices/pci0000:00/0000:00:01.1/0000:01:00.0" gives
// {"0000:00:01.1", "0000:01:00.0"}. Non-PCI components (the host bridge
// "pci0000:00", "virtio2", "net") are skipped, so the last element is the
// nearest PCI device of a netdev or RDMA device path too.
std::vector<std::string> PciAddressesInPath(std::string_view path);

// current_link_speed / max_link_speed, in GT/s: "16.0 GT/s PCIe" (4.19+),
// "8 GT/s" and "2.5 GT/s" (older kernels). "Unknown", "Unknown speed" and
// an empty value are nullopt; anything else is an error.
Result<std::optional<double>> ParseLinkSpeed(std::string_view text, std::string_view source);

// current_link_width / max_link_width: lanes; 0 (link down) is nullopt.
Result<std::optional<int>> ParseLinkWidth(std::string_view text, std::string_view source);

// "0x15b3", "0x020000": a hexadecimal id as sysfs prints it.
Result<uint32_t> ParseHexId(std::string_view text, std::string_view source);

// aer_dev_correctable / aer_dev_nonfatal / aer_dev_fatal: "NAME COUNT" lines;
// the TOTAL_ERR_* line is the total, every other line a per-type counter.
struct AerCounters {
  std::vector<std::pair<std::string, uint64_t>> by_type;
  std::optional<uint64_t> total;
};
Result<AerCounters> ParseAerCounters(std::string_view text, std::string_view source);

// /sys/module/pcie_aspm/parameters/policy: "default [performance] powersave
// powersupersave" -> "performance" (the bracketed word). No brackets or more
// than one bracketed word is an error.
Result<std::string> ParseAspmPolicy(std::string_view text, std::string_view source);

}  // namespace fabric
