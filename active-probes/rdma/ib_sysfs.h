// RDMA devices and ports as sysfs shows them under class/infiniband: which
// port serves a network interface, whether it is active, its link layer and
// rate, and the port counters the probe cross-checks its own count against.
// Read through common/kernel's class/infiniband reader so tests run on a
// fixture tree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/read/sysroot.h"
#include "common/result.h"

namespace fabric::probe {

struct RdmaPortInfo {
  std::string device;  // e.g. mlx5_0
  uint32_t port = 0;
  int state = 0;           // 4 = ACTIVE
  std::string state_text;  // "ACTIVE", "DOWN", ...
  std::string link_layer;  // "Ethernet" (RoCE) or "InfiniBand"
  double rate_bits_per_second = 0;
  std::vector<std::string> netdevs;  // network interfaces behind the port's GIDs
  bool active() const { return state == 4; }
};

// Every port of every RDMA device, sorted by device then port. An absent
// class/infiniband (no RDMA stack or no device) is an empty list.
Result<std::vector<RdmaPortInfo>> ListRdmaPorts(const SysRoot& root);

// The port to use. `device` (empty = any) narrows to one device; `netdev`
// (empty = any) to the port whose GIDs sit on that interface (the RoCE port for
// the source address). Errors: ErrorCode::kNoDevice (no RDMA device, none with
// that name, none on that interface) and kNoActivePort (the device exists but
// nothing is up).
Result<RdmaPortInfo> SelectRdmaPort(const std::vector<RdmaPortInfo>& ports,
                                    const std::string& device, const std::string& netdev);

// The counters the probe reads before and after its window. A counter the
// driver does not expose is nullopt (absent, never zero).
struct PortCounters {
  std::optional<uint64_t> xmit_bytes;      // counters/port_xmit_data x 4 (it counts 4-byte words)
  std::optional<uint64_t> rcv_bytes;       // counters/port_rcv_data x 4
  std::optional<uint64_t> np_cnp_sent;     // hw_counters: CNPs we sent as a congested receiver
  std::optional<uint64_t> rp_cnp_handled;  // hw_counters: CNPs we acted on as a sender
  std::optional<uint64_t> out_of_buffer;   // hw_counters: receive WQE missing, packet dropped
};
using PortCounterDelta = PortCounters;

PortCounters ReadPortCounters(const SysRoot& root, const std::string& device, uint32_t port);
// after - before per counter; absent when either side is, or it went backwards
// (a reset mid-window).
PortCounterDelta DiffPortCounters(const PortCounters& before, const PortCounters& after);

}  // namespace fabric::probe
