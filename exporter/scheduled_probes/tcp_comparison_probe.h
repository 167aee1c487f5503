// The TCP comparison runs (COMPARISON_RUNS), each repeating the tcp_multi
// rung's own sessions of the same plan meeting (TcpRungSessions: the
// direction pattern and, per direction, the calibrated block size and mode),
// so a comparison measures one thing, not the host's CPU under another load:
// tcp_multi_copy compares copy mode (write/read: the application's send
// path) with sendfile at the rung's block size, the rung's own run being one
// of the two (the mode it ran) and the comparison running the other right
// after it; tcp_multi_sweep runs the rung's sessions over a stream-count
// sweep after a tcp_multi result flagged stream_limited or cpu_bound. Records
// of their own (own `probe` label), recorded through the probe seam.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "active-probes/probe/probe.h"
#include "exporter/config/fleet.h"
#include "exporter/scheduled_probes/tcp_ladder_probe.h"

namespace fabric {

const probe::ProbeDeclaration& TcpCopyDeclaration();
const probe::ProbeDeclaration& TcpSweepDeclaration();

// The stream counts a sweep runs: 8, 16, 32, 48 up to `max_streams` per
// direction (SweepStreamLimit), at least one step (max_streams itself).
std::vector<uint32_t> SweepStreamCounts(uint32_t max_streams);

struct SweepStep {
  uint32_t streams = 0;
  double bytes_per_second = 0;
};

// Pure: one direction's sweep record. throughput = the best aggregate;
// saturating_streams = the count after which the next step added under 10%
// (absent while every step grew); streams = the saturating count, or the
// largest count while still growing; per_stream_ceiling = the best aggregate
// per stream of any step; stream_limited = still growing at the largest count
// (with two steps or more).
probe::Measurement SweepMeasurement(probe::Direction direction, std::vector<SweepStep> steps);

// Whether a tcp_multi record asks for a sweep: a successful run flagged
// stream_limited or cpu_bound.
bool WantsSweep(const ProbeRecord& tcp_multi);

// The modes tcp_multi_copy compares: the record's throughput is the first's,
// its reference_throughput the second's.
inline constexpr probe::SendMode kCopyComparisonMode = probe::SendMode::kCopy;
inline constexpr probe::SendMode kCopyReferenceMode = probe::SendMode::kSendfile;

// Pure: the mode a comparison session runs, the one of the two compared
// modes the rung's session did not run.
probe::SendMode CopyComparisonRuns(const TcpSession& rung_session);

// Pure: a session's tcp_multi_copy records: the copy run's records (values,
// verdicts) with the reference run's throughput of the same direction
// (reference_throughput); a contended reference makes the record contended
// (no clean reference, no comparison). Labelled with what ran: the session's
// block size and direction pattern, mode=copy, reference_mode=sendfile, and
// rung_mode (which of the two the rung's own run was).
std::vector<probe::Measurement> CopyComparisonMeasurements(
    const TcpSession& rung_session, const std::vector<probe::Measurement>& copy,
    const std::vector<probe::Measurement>& reference);

// The stream counts per direction the responder allows in a session
// pattern: its limit counts the streams of both directions when they run at
// once.
uint32_t SweepStreamLimit(const std::vector<TcpSession>& sessions, uint32_t responder_max_streams);

// The tcp_multi rung's records to `peer` by direction, when every direction
// succeeded at or after Unix time `since` (this meeting); else nullopt.
std::optional<std::map<probe::Direction, probe::Measurement>> RungResultsSince(
    const ResultStore& store, const std::string& peer, double since);

// tcp_multi_copy: per session of the rung, the other compared mode; `rung`
// holds the rung's records of the same meeting by direction.
class TcpCopyProbe : public probe::Probe {
 public:
  TcpCopyProbe(const TcpLadderSettings& settings, std::vector<TcpSession> sessions,
               std::map<probe::Direction, probe::Measurement> rung, const FleetNode& self,
               const FleetNode& peer)
      : settings_(settings),
        sessions_(std::move(sessions)),
        rung_(std::move(rung)),
        self_(self),
        peer_(peer) {}
  const probe::ProbeDeclaration& declaration() const override { return TcpCopyDeclaration(); }
  probe::Rung rung() const override { return probe::Rung::kTcpMultiCopy; }
  std::string target() const override { return peer_.name; }
  Result<std::vector<probe::Measurement>> Run(const probe::ProbeContext& context) override;

 private:
  TcpLadderSettings settings_;
  std::vector<TcpSession> sessions_;
  std::map<probe::Direction, probe::Measurement> rung_;
  FleetNode self_;
  FleetNode peer_;
};

class TcpSweepProbe : public probe::Probe {
 public:
  TcpSweepProbe(const TcpLadderSettings& settings, std::vector<TcpSession> sessions,
                std::vector<uint32_t> counts, const FleetNode& self, const FleetNode& peer)
      : settings_(settings),
        sessions_(std::move(sessions)),
        counts_(std::move(counts)),
        self_(self),
        peer_(peer) {}
  const probe::ProbeDeclaration& declaration() const override { return TcpSweepDeclaration(); }
  probe::Rung rung() const override { return probe::Rung::kTcpMultiSweep; }
  std::string target() const override { return peer_.name; }
  Result<std::vector<probe::Measurement>> Run(const probe::ProbeContext& context) override;

 private:
  TcpLadderSettings settings_;
  std::vector<TcpSession> sessions_;
  std::vector<uint32_t> counts_;
  FleetNode self_;
  FleetNode peer_;
};

// Seconds one TCP run of the settings takes at most (warm-up, window and the
// session set-up), for the budget and the round's remaining time.
double TcpRunSeconds(const TcpLadderSettings& settings);
// Seconds a comparison run takes at most over the rung's sessions (one per
// direction when calibrated, else one): per session one run (the mode the
// rung did not run), or one run per sweep step.
double CopyComparisonSeconds(const TcpLadderSettings& settings);
double SweepSeconds(const TcpLadderSettings& settings, size_t steps);

}  // namespace fabric
