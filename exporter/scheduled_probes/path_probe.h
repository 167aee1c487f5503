// The path probe (kind `path`, cheap, default every minute): for one peer,
// the kernel's route (egress interface, source address, MTU) against the
// fleet config's expectation, and whether a full-size frame with DF set gets
// through. Field shape 13: routes that silently used a 10 GbE onboard NIC, and
// MTU 9000 on one side against 1500 on the other.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "active-probes/path/route_lookup.h"
#include "active-probes/probe/probe.h"
#include "exporter/config/fleet.h"

namespace fabric {

// What the path probe produces.
const probe::ProbeDeclaration& PathProbeDeclaration();
// The path MTU the jumbo check sends: the smaller of both ends' configured
// MTU, or the one configured; 0 when neither is.
int ExpectedPathMtu(const FleetNode& self, const FleetNode& peer);
// Echoes the jumbo check sends before it calls the path failing: one echo lost
// in a queue that a probe or a transfer fills is congestion, not an MTU that
// drops every full-size frame (a loaded healthy fleet raised
// FabricJumboFramesFailing on one lost echo).
inline constexpr int kJumboEchoAttempts = 3;
// The record of a route found (pure): `echo` is the jumbo check's answer,
// nullopt when it did not run (no MTU configured).
probe::Measurement PathMeasurement(const FleetNode& self, const RouteInfo& route, int path_mtu,
                                   const std::optional<Result<bool>>& echo);

class PathProbe : public probe::Probe {
 public:
  // `saturated`: the traffic through the egress interface (bytes per second, the busier
  // direction) at which the path is full: half of what the path proved uncontended
  // (nullopt: no proven rate, every lost echo counts).
  PathProbe(const FleetNode& self, const FleetNode& peer, std::chrono::milliseconds echo_timeout,
            std::optional<double> saturated = std::nullopt);
  const probe::ProbeDeclaration& declaration() const override { return PathProbeDeclaration(); }
  probe::Rung rung() const override { return probe::Rung::kPath; }
  std::string target() const override { return peer_.name; }
  // A missing route fails (no_route); the route found with a jumbo check that
  // could not run is a result with a note. The jumbo frames pass when any of
  // kJumboEchoAttempts echoes comes back; when none does while the path carried
  // `saturated` or more, the echoes were lost to a full queue, not to the MTU,
  // and the check says so in a note instead of failing (a healthy path under a
  // bulk transfer is not a jumbo-frame fault). The context's stop request cuts
  // the echo's wait short (kInterrupted: nothing is recorded).
  Result<std::vector<probe::Measurement>> Run(const probe::ProbeContext& context) override;

 private:
  FleetNode self_;
  FleetNode peer_;
  std::chrono::milliseconds echo_timeout_;
  std::optional<double> saturated_;
};

}  // namespace fabric
