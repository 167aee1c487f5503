// Groups the kernel's tracked RDMA objects (queue pairs and rdma_cm ids,
// common/kernel/rdma_resources.h) into the rdma collector's per-process and
// per-peer counts, with bounded cardinality: at most `max_series` groups per
// family keep their process and peer; the rest fold into command="other",
// peer="other" (device, port, type and state kept, so what folds stays
// bounded by the hardware). Pure: the caller names pids and peers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "common/kernel/rdma_resources.h"

namespace fabric {

struct RdmaResourceGroup {
  std::string device;
  uint32_t port = 0;
  std::string command;  // comm of the pid, "[module]" for a kernel owner.
  std::string pid;      // Empty for kernel owners and folded groups.
  std::string type;     // QPs: RC, UD, GSI ...; cm ids: the port space (TCP, UDP, IB ...).
  std::string state;    // RTS, ERR ... / CONNECT, LISTEN ...
  std::string peer;     // Fleet node, else the address; "unknown", "other".
  size_t count = 0;

  auto Key() const { return std::make_tuple(device, port, command, pid, type, state, peer); }
};

struct RdmaResourceReport {
  std::vector<RdmaResourceGroup> qps;
  std::vector<RdmaResourceGroup> cm_ids;
  size_t folded_qp_groups = 0;
  size_t folded_cm_id_groups = 0;
};

struct RdmaResourceNaming {
  // The comm of a pid (/proc/PID/comm); empty when the process is gone.
  std::function<std::string(uint32_t pid)> command_of;
  // Fleet node names by address (IpAddress::ToString form).
  std::map<std::string, std::string> peers;
};

// A QP's peer is its rdma_cm id's destination (same device and QP number);
// a QP set up without rdma_cm (out-of-band exchange, as NCCL, MPI and
// perftest do by default) has peer "unknown": the kernel does not track the
// remote address of a verbs QP. A cm id without a destination (a listener)
// has peer "none".
RdmaResourceReport GroupRdmaResources(const RdmaResources& resources,
                                      const RdmaResourceNaming& naming, size_t max_series);

}  // namespace fabric
