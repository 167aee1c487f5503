// The scheduled TCP rungs of the ladder: one multi-stream run and, optionally,
// one single-stream run against a peer's responder, each direction in a session
// of its own with the send mode and block size calibrated for it
// (tcp_calibration.h), recorded through the probe seam
// (probe=tcp_multi|tcp_single, direction=send|receive) with the probe's
// self-check verdicts and the mode and block size used.
#pragma once

#include <string>
#include <vector>

#include "active-probes/probe/probe.h"
#include "active-probes/tcp/tcp_probe.h"
#include "exporter/config/fleet.h"
#include "exporter/scheduled_probes/result_store.h"
#include "exporter/scheduled_probes/scheduler.h"
#include "exporter/scheduled_probes/tcp_calibration.h"

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
  TcpCalibrationSettings calibration;
};

// What the TCP rungs produce.
const probe::ProbeDeclaration& TcpRungDeclaration();
// A run's records, one per direction measured (pure).
std::vector<probe::Measurement> TcpMeasurements(const probe::TcpProbeResult& result);

// One TCP rung to `peer`: tcp_multi (settings.streams streams) or tcp_single
// (one stream), both directions. With `calibrations` (the result store) each
// direction uses, and when due first measures, its calibrated mode and block
// size; without, the default candidate.
class TcpRungProbe : public probe::Probe {
 public:
  TcpRungProbe(probe::Rung rung, const TcpLadderSettings& settings, const FleetNode& self,
               const FleetNode& peer, ResultStore* calibrations = nullptr);
  const probe::ProbeDeclaration& declaration() const override { return TcpRungDeclaration(); }
  probe::Rung rung() const override { return rung_; }
  std::string target() const override { return peer_.name; }
  Result<std::vector<probe::Measurement>> Run(const probe::ProbeContext& context) override;

 private:
  // The candidate `direction` runs with, calibrating first when due.
  Result<TcpCandidate> CandidateFor(probe::Direction direction,
                                    const probe::TcpProbeOptions& options,
                                    const probe::ProbeContext& context);

  probe::Rung rung_;
  TcpLadderSettings settings_;
  FleetNode self_;
  FleetNode peer_;
  ResultStore* calibrations_;
};

// The ProbeRecords every TCP rung to `peer` produces, for ResultStore::Expect.
std::vector<ProbeKey> TcpLadderKeys(const TcpLadderSettings& settings, const std::string& peer);

// Runs one rung and records it. The context's stop request ends the run
// within ~50 ms and records nothing.
ProbeOutcome RunTcpRung(probe::Rung rung, const TcpLadderSettings& settings, const FleetNode& self,
                        const FleetNode& peer, const probe::ProbeContext& context,
                        ResultStore& store);

// Runs the TCP rungs against `peer` and records them (the single-stream rung
// only after a successful multi-stream one). Returns the scheduler outcome
// (busy when the peer's responder stayed busy). An interrupted rung records
// nothing, so the previous result stands.
ProbeOutcome RunTcpLadder(const TcpLadderSettings& settings, const FleetNode& self,
                          const FleetNode& peer, const probe::ProbeContext& context,
                          ResultStore& store);

}  // namespace fabric
