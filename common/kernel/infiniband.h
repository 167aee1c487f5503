// class/infiniband: RDMA devices, their ports, the ports' state, rate, link
// layer, GID netdevs and counters (counters/ and hw_counters/). The one
// reader of that area: the rdma collector and the RDMA probe's port
// selection and window counters both read it through here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/parse/sysfs_values.h"
#include "common/read/file_reader.h"
#include "common/read/sysroot.h"
#include "common/result.h"

namespace fabric {

// RDMA device names under class/infiniband, sorted; absent when there is no
// RDMA stack or no device.
Result<std::vector<std::string>> ListIbDevices(const SysRoot& root);

// class/infiniband/<device>.
std::string IbDevicePath(const SysRoot& root, const std::string& device);

// The PCI function behind the device (its `device` link), empty when the
// link is missing or names none.
std::string IbDevicePciAddress(const SysRoot& root, const std::string& device);

// Port directory names under ports/, sorted; absent when there is none.
Result<std::vector<std::string>> ListIbPorts(const SysRoot& root, const std::string& device);

// class/infiniband/<device>/ports/<port>.
std::string IbPortPath(const SysRoot& root, const std::string& device, const std::string& port);

// The counter directories of a port.
enum class IbCounterSet { kPort, kHw };  // counters/, hw_counters/
AttributeDir IbCounterDir(const SysRoot& root, const std::string& device, const std::string& port,
                          IbCounterSet set);

// A word attribute of a device or port directory (hca_type, link_layer),
// trimmed; empty when absent.
Result<std::string> ReadIbWord(const AttributeDir& dir, const std::string& name);

// ports/N/state or phys_state ("4: ACTIVE"); nullopt when absent.
Result<std::optional<IbStateValue>> ReadIbState(const AttributeDir& port_dir,
                                                const std::string& name);

// ports/N/rate in bytes per second; nullopt when absent.
Result<std::optional<double>> ReadIbRateBytes(const AttributeDir& port_dir);

// One counter of a counter directory; nullopt when the driver does not have
// it (mlx5 RoCE ports answer EINVAL for IB-only counters).
Result<std::optional<uint64_t>> ReadIbCounter(const AttributeDir& counter_dir,
                                              const std::string& name);

// The netdev in GID slot `index` (gid_attrs/ndevs/<index>), empty when the
// slot is unused or missing.
Result<std::string> ReadIbGidNetdev(const AttributeDir& port_dir, int index);

// Every distinct netdev behind the port's GIDs in slot order; unreadable
// slots (unused ones read EINVAL) are skipped.
std::vector<std::string> ListIbGidNetdevs(const SysRoot& root, const std::string& device,
                                          const std::string& port);

// Interfaces of the device's PCI function (device/net/), for drivers without
// gid_attrs; absent when there is none.
Result<std::vector<std::string>> ListIbDeviceNetdevs(const SysRoot& root,
                                                     const std::string& device);

}  // namespace fabric
