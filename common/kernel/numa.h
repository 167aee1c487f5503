// NUMA: the node a PCI device (and so a network interface) sits on, and the
// CPUs of each node. The one reader of devices/system/node and the devices'
// numa_node attributes: the TCP probe pins its threads with it, the netdev
// collector compares a NIC's node with the CPUs its interrupts are sent to.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/read/sysroot.h"
#include "common/result.h"

namespace fabric {

// class/net/<ifname>/device/numa_node; nullopt when absent or -1 (no NUMA,
// or a virtual interface).
std::optional<int> NetDeviceNumaNode(const SysRoot& root, const std::string& ifname);

// devices/system/node/node<N>/cpulist.
Result<std::vector<int>> NumaNodeCpus(const SysRoot& root, int node);

// The CPUs of the node the interface's device sits on, empty when unknown.
std::vector<int> NetDeviceNumaCpus(const SysRoot& root, const std::string& ifname);

// CPU -> node for every node under devices/system/node; absent when sysfs
// has no node directory (a kernel without NUMA support).
Result<std::map<int, int>> CpuNumaNodes(const SysRoot& root);

}  // namespace fabric
