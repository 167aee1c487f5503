// The read layer of the PCIe collector: PCI devices, their topology and
// attributes, and the netdev/RDMA devices bound to them, from sysfs.
// Topology comes from where /sys/bus/pci/devices/<addr> links into
// /sys/devices: the parent is the previous PCI address in that path.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/parse/pcie_sysfs_parse.h"
#include "common/read/sysroot.h"
#include "common/result.h"
#include "exporter/pcie/pcie_path.h"

namespace fabric {

struct PciDeviceEntry {
  std::string address;
  std::string parent;  // Empty on a root bus.
  uint32_t class_code = 0;
  bool virtual_function = false;  // An SR-IOV VF (has `physfn`).
};

// Every device under bus/pci/devices. Absent when sysfs has no PCI bus. A
// device whose link or class cannot be read is left out and its error put in
// `device_errors` (by address) when given, so one broken device does not hide
// the others; without `device_errors` it fails the listing.
Result<std::map<std::string, PciDeviceEntry>> ListPciDevices(
    const SysRoot& root, std::map<std::string, Error>* device_errors = nullptr);

inline constexpr std::array<const char*, 3> kAerSeverities = {"correctable", "nonfatal", "fatal"};

// Identity and link of one device. AER and ASPM are separate reads
// (ReadPciAer, ReadPciLinkAspm): a garbage counter file there drops only that
// family of the device, not the link that the path analysis needs.
struct PciDeviceDetails {
  std::optional<uint32_t> vendor, device, subsystem_vendor, subsystem_device;
  std::string driver;
  std::string numa_node;
  PcieLinkValues link;  // From current_link_* / max_link_* attributes.
};

Result<PciDeviceDetails> ReadPciDeviceDetails(const SysRoot& root, const std::string& address);

struct PciAer {
  // aer_dev_{correctable,nonfatal,fatal}, in kAerSeverities order.
  std::array<std::optional<AerCounters>, 3> dev;
  // aer_rootport_total_err_{cor,nonfatal,fatal} of a root port.
  std::array<std::optional<uint64_t>, 3> rootport;
};

// The device's AER counters. A file the kernel does not create (no AER
// capability, not a root port, a kernel before 5.8) is left unset; one that
// cannot be read or parsed fails the whole family.
Result<PciAer> ReadPciAer(const SysRoot& root, const std::string& address);

// link/{l0s,l1,l1_1,l1_2}_aspm (Linux 5.5+): whether each ASPM state is
// enabled on the link above the device, by state ("l0s", "l1", ...). The
// kernel creates only the states the link supports (no link/ at all on a
// root port or without ASPM), so an absent file is left out; one that holds
// neither 0 nor 1 fails the family.
using PciLinkAspm = std::vector<std::pair<std::string, bool>>;
Result<PciLinkAspm> ReadPciLinkAspm(const SysRoot& root, const std::string& address);

// Names under `class_dir` (class/net, class/infiniband) whose sysfs path lies
// under a PCI device, by that device's address, sorted.
Result<std::map<std::string, std::vector<std::string>>> ReadBoundNames(const SysRoot& root,
                                                                       const char* class_dir);

// /sys/module/pcie_aspm/parameters/policy: the kernel's ASPM policy
// ("default", "performance", "powersave", "powersupersave"); absent without
// ASPM support.
Result<std::string> ReadAspmPolicy(const SysRoot& root);

}  // namespace fabric
