// The kernel's RDMA resource tracking (restrack), read over RDMA netlink
// (NETLINK_RDMA, RDMA_NL_NLDEV) as `rdma resource show qp|cm_id` reads it:
// a device dump, then per device a queue-pair dump and an rdma_cm id dump.
// A recorded form of the same bytes (one file per dump) stands in for the
// kernel in fixture trees and tests.
#pragma once

#include <string>
#include <vector>

#include "common/parse/rdma_netlink_parse.h"
#include "common/result.h"

namespace fabric {

struct RdmaResources {
  std::vector<RdmaQpRecord> qps;
  std::vector<RdmaCmIdRecord> cm_ids;
};

// Asks the running kernel. Absent when it has no RDMA netlink (ib_core not
// loaded) or no RDMA device. The kernel lists only objects of processes in
// the caller's pid namespace (rdma_is_visible_in_pid_ns), with their pids as
// that namespace numbers them.
Result<RdmaResources> DumpRdmaResources();

// The recorded dumps in `dir`: `devices.nl` (the RDMA_NLDEV_CMD_GET dump)
// and, per device it lists, `<device>.qp.nl` and `<device>.cm_id.nl`, each
// the reply bytes of one dump as the kernel sent them (every recv buffer
// concatenated, NLMSG_DONE last). A missing per-device file means none.
Result<RdmaResources> LoadRdmaResourceRecording(const std::string& dir);

}  // namespace fabric
