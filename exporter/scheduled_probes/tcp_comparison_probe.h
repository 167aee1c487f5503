// The TCP comparison runs (COMPARISON_RUNS): tcp_multi_copy, the tcp_multi run
// in copy mode (write/read instead of sendfile: the application's send path),
// and tcp_multi_sweep, the multi-stream run over a stream-count sweep after a
// tcp_multi result flagged stream_limited or cpu_bound. Records of their own
// (own `probe` label), both directions, recorded through the probe seam.
#pragma once

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
// direction (the responder's limit over both directions, halved), at least
// one step (max_streams itself).
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

class TcpCopyProbe : public probe::Probe {
 public:
  TcpCopyProbe(const TcpLadderSettings& settings, const FleetNode& self, const FleetNode& peer)
      : settings_(settings), self_(self), peer_(peer) {}
  const probe::ProbeDeclaration& declaration() const override { return TcpCopyDeclaration(); }
  probe::Rung rung() const override { return probe::Rung::kTcpMultiCopy; }
  std::string target() const override { return peer_.name; }
  Result<std::vector<probe::Measurement>> Run(const probe::ProbeContext& context) override;

 private:
  TcpLadderSettings settings_;
  FleetNode self_;
  FleetNode peer_;
};

class TcpSweepProbe : public probe::Probe {
 public:
  TcpSweepProbe(const TcpLadderSettings& settings, std::vector<uint32_t> counts,
                const FleetNode& self, const FleetNode& peer)
      : settings_(settings), counts_(std::move(counts)), self_(self), peer_(peer) {}
  const probe::ProbeDeclaration& declaration() const override { return TcpSweepDeclaration(); }
  probe::Rung rung() const override { return probe::Rung::kTcpMultiSweep; }
  std::string target() const override { return peer_.name; }
  Result<std::vector<probe::Measurement>> Run(const probe::ProbeContext& context) override;

 private:
  TcpLadderSettings settings_;
  std::vector<uint32_t> counts_;
  FleetNode self_;
  FleetNode peer_;
};

// Seconds one TCP run of the settings takes at most (warm-up, window and the
// session set-up), for the budget and the round's remaining time.
double TcpRunSeconds(const TcpLadderSettings& settings);

}  // namespace fabric
