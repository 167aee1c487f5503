// class/net: the network interfaces sysfs shows, their link attributes
// (mtu, speed, carrier, operstate, ...) and the counters under statistics/.
// The one reader of that area: the netdev collector, the TCP probe's window
// edges and the probe runtime's busy check all read interfaces through it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/read/file_reader.h"
#include "common/read/sysroot.h"
#include "common/result.h"

namespace fabric {

// Interface names under class/net, sorted; absent when sysfs has none.
Result<std::vector<std::string>> ListNetInterfaces(const SysRoot& root);

// class/net/<ifname> and class/net/<ifname>/statistics, held open.
AttributeDir NetInterfaceDir(const SysRoot& root, const std::string& ifname);
AttributeDir NetStatisticsDir(const AttributeDir& interface_dir);

// An integer attribute of an interface directory (mtu, speed, carrier,
// carrier_changes, or a statistics/ counter): nullopt when absent (speed and
// carrier read EINVAL while the link is down), an error when unreadable or
// not a number.
Result<std::optional<int64_t>> ReadNetInt(const AttributeDir& dir, const std::string& file);
// A word attribute (duplex, operstate), trimmed; nullopt when absent.
Result<std::optional<std::string>> ReadNetWord(const AttributeDir& dir, const std::string& file);

// The byte counters a probe samples at its window edges; nullopt when either
// is missing or unreadable.
struct NetByteCounters {
  uint64_t rx_bytes = 0;
  uint64_t tx_bytes = 0;
};
std::optional<NetByteCounters> ReadNetByteCounters(const SysRoot& root, const std::string& ifname);

// The link speed in Mb/s, nullopt when unknown (no link, SPEED_UNKNOWN -1,
// 0 from veth and virtio).
std::optional<int64_t> ReadNetSpeedMbps(const SysRoot& root, const std::string& ifname);

// Queue directories under class/net/<ifname>/queues: "rx-0", "rx-1", ...
// and "tx-0", ...; each list sorted by queue number; absent when the
// interface has no queues directory.
struct NetQueues {
  std::vector<std::string> rx, tx;
};
Result<NetQueues> ListNetQueues(const AttributeDir& interface_dir);

// A queue's CPU mask (rx-N/rps_cpus, tx-N/xps_cpus) as CPU numbers; nullopt
// when the kernel has no such file (RPS/XPS not built, or a single-queue
// device without XPS).
Result<std::optional<std::vector<int>>> ReadNetQueueCpus(const AttributeDir& interface_dir,
                                                         const std::string& queue,
                                                         const std::string& file);

// The MSI/MSI-X interrupts of the interface's PCI function
// (class/net/<ifname>/device/msi_irqs), sorted; absent for interfaces
// without a PCI device or with legacy interrupts.
Result<std::vector<int>> ListNetDeviceIrqs(const AttributeDir& interface_dir);

}  // namespace fabric
