// The scheduled TCP rungs of the ladder: one multi-stream run and, optionally,
// one single-stream run against a peer's responder, both directions in one
// session each, turned into ProbeRecords (probe=tcp_multi|tcp_single,
// direction=send|receive) with the probe's self-check verdicts.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "exporter/config/fleet.h"
#include "exporter/scheduled_probes/result_store.h"
#include "exporter/scheduled_probes/scheduler.h"

namespace fabric {

struct TcpLadderSettings {
  bool enabled = false;
  double round_seconds = 600;  // One plan round: each node probes at most one peer.
  double duration_seconds = 10;
  double warmup_seconds = 2;
  uint32_t streams = 8;
  bool single_stream = true;
  uint16_t port = 9878;
  std::string secret;  // Loaded from probes.secret_file at start-up.
};

// The ProbeRecords every TCP rung to `peer` produces, for ResultStore::Expect.
std::vector<ProbeKey> TcpLadderKeys(const TcpLadderSettings& settings, const std::string& peer);

// Runs one rung, "tcp_multi" (settings.streams streams) or "tcp_single" (one stream), both
// directions, and records it. Setting `stop` (may be null) ends the run within ~50 ms and
// records nothing.
ProbeOutcome RunTcpRung(const std::string& rung, const TcpLadderSettings& settings,
                        const FleetNode& self, const FleetNode& peer, const std::string& procfs,
                        const std::string& sysfs, const std::atomic<bool>* stop,
                        ResultStore& store);

// Runs the TCP rungs against `peer` and records them. Returns the scheduler
// outcome (busy when the peer's responder stayed busy). Setting `stop` ends a
// run within ~50 ms; an interrupted rung records nothing, so the previous
// result stands.
ProbeOutcome RunTcpLadder(const TcpLadderSettings& settings, const FleetNode& self,
                          const FleetNode& peer, const std::string& procfs,
                          const std::string& sysfs, const std::atomic<bool>* stop,
                          ResultStore& store);

}  // namespace fabric
