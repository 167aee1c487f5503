// The scheduled RDMA rung, the top of the ladder: RDMA WRITE bandwidth to the
// peer of the plan round (probe=rdma, direction=send), with the RDMA probe's
// self-checks. Hosts without an RDMA device record the reason (no_device),
// never a number.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "exporter/config/fleet.h"
#include "exporter/scheduled_probes/result_store.h"
#include "exporter/scheduled_probes/scheduler.h"

namespace fabric {

struct RdmaLadderSettings {
  bool enabled = false;
  uint32_t qps = 4;
  uint32_t size = 65536;
  uint32_t tx_depth = 128;
  double duration_seconds = 5;
  double warmup_seconds = 1;
  std::string device;                      // Empty: the device holding the source address.
  uint64_t max_region_bytes = 1ull << 30;  // Largest region a peer's session may register here.
};

std::vector<ProbeKey> RdmaLadderKeys(const std::string& peer);

// Setting `stop` (may be null) ends the run within ~50 ms; an interrupted run
// records nothing.
ProbeOutcome RunRdmaLadder(const RdmaLadderSettings& settings, const std::string& secret,
                           uint16_t port, const FleetNode& self, const FleetNode& peer,
                           const std::string& procfs, const std::string& sysfs,
                           const std::atomic<bool>* stop, ResultStore& store);

}  // namespace fabric
