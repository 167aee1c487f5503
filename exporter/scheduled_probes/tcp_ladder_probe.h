// The scheduled TCP rungs of the ladder: one multi-stream run and, optionally,
// one single-stream run against a peer's responder, each direction in a session
// of its own with the send mode and block size calibrated for it
// (tcp_calibration.h), recorded through the probe seam
// (probe=tcp_multi|tcp_single, direction=send|receive) with the probe's
// self-check verdicts and the mode and block size used.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
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
  // 5 s measured after 1 s of warm-up: a low-RTT fabric path is at its steady
  // rate within milliseconds, and shorter runs leave the probe budget room for
  // the comparison runs (docs/probes/scheduled.md#comparison-runs).
  double duration_seconds = 5;
  double warmup_seconds = 1;
  uint32_t streams = 8;
  bool single_stream = true;
  // The single-stream rung runs at every Nth plan meeting of a pair, the first
  // included: the per-stream ceiling is a property of the two hosts (kernel,
  // NIC, CPU), which changes with upgrades, not by the hour.
  uint32_t single_stream_every = 4;
  uint16_t port = 9878;
  std::string secret;  // Loaded from probes.secret_file at start-up.
  TcpCalibrationSettings calibration;
};

// What the TCP rungs produce.
const probe::ProbeDeclaration& TcpRungDeclaration();
// A run's records, one per direction measured (pure).
std::vector<probe::Measurement> TcpMeasurements(const probe::TcpProbeResult& result);

// One session of a TCP run: the direction it measures (kBoth: both at once,
// sharing the hosts' CPUs) and the candidate it sends with.
struct TcpSession {
  probe::Direction direction = probe::Direction::kBoth;
  TcpCandidate candidate;
  bool operator==(const TcpSession& other) const = default;
};

// The sessions a rung to `peer` runs in, for the comparison runs to repeat
// like for like: with calibration on, each direction of the rung alone with
// its calibrated candidate (nullopt while a direction is not calibrated: the
// rung has not run yet); off, one session of both directions with the
// default candidate.
std::optional<std::vector<TcpSession>> TcpRungSessions(probe::Rung rung,
                                                       const TcpLadderSettings& settings,
                                                       const std::string& peer,
                                                       const ResultStore& calibrations);

// What ran, for a record's fabric_probe_info: mode, block_bytes and
// directions ("one_at_a_time" or "both_at_once").
std::map<std::string, std::string> SessionInfo(const TcpSession& session);
// Adds SessionInfo to each record.
void LabelSession(std::vector<probe::Measurement>& measured, const TcpSession& session);

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

// Whether a pair's `meeting`-th plan meeting runs the single-stream rung.
// Meetings are counted from the pair's FirstMeeting, not from 0.
bool SingleStreamDue(const TcpLadderSettings& settings, uint64_t meeting);
// Where a pair's meeting count starts: a phase in [0, single_stream_every)
// fixed by the two names, so a node's pairs take their single-stream turns
// at different meetings. Counted from 0 for all, every pair's first meeting
// would carry the rung, and a fleet's first pass over its pairs would spend
// a budget share the steady state never does.
uint64_t FirstMeeting(const TcpLadderSettings& settings, std::string_view self,
                      std::string_view peer);
// Whether it is a turn for the pair's comparison runs (copy mode, the stream
// sweep): the meeting after each single-stream one, so no meeting holds both
// and the comparisons leave the storage comparisons their share of the budget.
bool PairComparisonTurn(const TcpLadderSettings& settings, uint64_t meeting);

// The wall seconds one plan meeting's TCP rungs are expected to take (each
// session's warm-up, measurement and set-up; a daily calibration not
// counted), with or without the single-stream rung: what the meeting spends
// of the probe budget.
double TcpLadderSeconds(const TcpLadderSettings& settings, bool with_single);

// Runs one rung and records it. The context's stop request ends the run
// within ~50 ms and records nothing.
ProbeOutcome RunTcpRung(probe::Rung rung, const TcpLadderSettings& settings, const FleetNode& self,
                        const FleetNode& peer, const probe::ProbeContext& context,
                        ResultStore& store);

// Runs the TCP rungs against `peer` and records them (the single-stream rung
// when `with_single`, and only after a successful multi-stream one). Returns
// the scheduler outcome (busy when the peer's responder stayed busy). An
// interrupted rung records nothing, so the previous result stands.
ProbeOutcome RunTcpLadder(const TcpLadderSettings& settings, const FleetNode& self,
                          const FleetNode& peer, const probe::ProbeContext& context,
                          ResultStore& store, bool with_single);

}  // namespace fabric
