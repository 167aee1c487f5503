// The path probe (kind `path`, cheap, default every minute): for one peer,
// the kernel's route (egress interface, source address, MTU) against the
// fleet config's expectation, and whether a full-size frame with DF set gets
// through. Field shape 13: routes that silently used a 10 GbE onboard NIC, and
// MTU 9000 on one side against 1500 on the other.
#pragma once

#include <atomic>
#include <chrono>

#include "exporter/config/fleet.h"
#include "exporter/scheduled_probes/result_store.h"

namespace fabric {

// `stop` cuts the jumbo echo's wait short (the record then says so).
ProbeRecord RunPathProbe(const FleetNode& self, const FleetNode& peer,
                         std::chrono::milliseconds echo_timeout,
                         const std::atomic<bool>* stop = nullptr);

}  // namespace fabric
