#include "exporter/scheduled_probes/tcp_comparison_probe.h"

#include <algorithm>
#include <map>

#include "exporter/scheduled_probes/probe_adapter.h"

namespace fabric {

using probe::ProbeValue;
using probe::Rung;
using probe::Verdict;

namespace {

// A step that adds less than this share over the previous one has stopped
// growing: the measurement noise of one run on a quiet path is a few percent.
constexpr double kGrowthRatio = 1.10;

// The sessions of a rung: one per direction when calibrated, else one.
double Sessions(const TcpLadderSettings& settings) { return settings.calibration.enabled ? 2 : 1; }

// One session of the rung, as the rung runs it.
probe::TcpProbeOptions Options(const TcpLadderSettings& settings, const FleetNode& self,
                               const FleetNode& peer, const TcpSession& session) {
  probe::TcpProbeOptions options;
  options.peer = {peer.address, settings.port};
  options.bind_address = self.address;
  options.secret = settings.secret;
  options.streams = settings.streams;
  options.duration =
      std::chrono::milliseconds(static_cast<int64_t>(settings.duration_seconds * 1000));
  options.warmup = std::chrono::milliseconds(static_cast<int64_t>(settings.warmup_seconds * 1000));
  options.direction = session.direction;
  options.mode = session.candidate.mode;
  options.block = session.candidate.block;
  options.busy_retries = 2;
  options.pin = false;  // As the rungs: the exporter shares the host.
  return options;
}

}  // namespace

const probe::ProbeDeclaration& TcpCopyDeclaration() {
  // The tcp_multi rung's values and verdicts, and the reference run's throughput.
  static const probe::ProbeDeclaration declaration = [] {
    probe::ProbeDeclaration d = TcpRungDeclaration();
    d.rungs = {Rung::kTcpMultiCopy};
    d.values.push_back(ProbeValue::kReferenceThroughput);
    return d;
  }();
  return declaration;
}

const probe::ProbeDeclaration& TcpSweepDeclaration() {
  static const probe::ProbeDeclaration declaration{
      "tcp",
      {Rung::kTcpMultiSweep},
      {ProbeValue::kThroughput, ProbeValue::kStreams, ProbeValue::kPerStreamCeiling,
       ProbeValue::kSaturatingStreams},
      {Verdict::kStreamLimited},
  };
  return declaration;
}

probe::SendMode CopyComparisonRuns(const TcpSession& rung_session) {
  return rung_session.candidate.mode == kCopyComparisonMode ? kCopyReferenceMode
                                                            : kCopyComparisonMode;
}

std::vector<probe::Measurement> CopyComparisonMeasurements(
    const TcpSession& rung_session, const std::vector<probe::Measurement>& copy,
    const std::vector<probe::Measurement>& reference) {
  TcpSession compared = rung_session;
  compared.candidate.mode = kCopyComparisonMode;
  std::vector<probe::Measurement> out = copy;
  LabelSession(out, compared);
  for (probe::Measurement& m : out) {
    m.info["reference_mode"] = std::string(probe::SendModeName(kCopyReferenceMode));
    m.info["rung_mode"] = std::string(probe::SendModeName(rung_session.candidate.mode));
    for (const probe::Measurement& r : reference) {
      if (r.direction != m.direction) continue;
      if (auto rate = r.values.find(ProbeValue::kThroughput); rate != r.values.end()) {
        m.values[ProbeValue::kReferenceThroughput] = rate->second;
      }
      if (auto c = r.verdicts.find(Verdict::kContended); c != r.verdicts.end() && c->second) {
        m.verdicts[Verdict::kContended] = true;
      }
    }
  }
  return out;
}

std::optional<std::map<probe::Direction, probe::Measurement>> RungResultsSince(
    const ResultStore& store, const std::string& peer, double since) {
  std::map<probe::Direction, probe::Measurement> out;
  for (const ProbeKey& key : KeysOf(Rung::kTcpMulti, peer)) {
    auto record = store.Find(key);
    if (!record || !record->success || record->timestamp_seconds < since) return std::nullopt;
    probe::Measurement& m = out[key.direction];
    m.direction = key.direction;
    m.values = record->values;
    m.verdicts = record->verdicts;
    m.info = record->info;
  }
  return out;
}

uint32_t SweepStreamLimit(const std::vector<TcpSession>& sessions, uint32_t responder_max_streams) {
  for (const TcpSession& session : sessions) {
    if (session.direction == probe::Direction::kBoth) return responder_max_streams / 2;
  }
  return responder_max_streams;
}

std::vector<uint32_t> SweepStreamCounts(uint32_t max_streams) {
  std::vector<uint32_t> counts;
  for (uint32_t n : {8u, 16u, 32u, 48u}) {
    if (n <= max_streams) counts.push_back(n);
  }
  if (counts.empty()) counts.push_back(std::max<uint32_t>(max_streams, 1));
  return counts;
}

probe::Measurement SweepMeasurement(probe::Direction direction, std::vector<SweepStep> steps) {
  std::sort(steps.begin(), steps.end(),
            [](const SweepStep& a, const SweepStep& b) { return a.streams < b.streams; });
  probe::Measurement m;
  m.direction = direction;
  if (steps.empty()) return m;
  double best = 0, ceiling = 0;
  std::optional<uint32_t> saturating;
  for (size_t i = 0; i < steps.size(); ++i) {
    best = std::max(best, steps[i].bytes_per_second);
    if (steps[i].streams > 0) {
      ceiling = std::max(ceiling, steps[i].bytes_per_second / steps[i].streams);
    }
    if (i > 0 && !saturating &&
        steps[i].bytes_per_second < kGrowthRatio * steps[i - 1].bytes_per_second) {
      saturating = steps[i - 1].streams;
    }
  }
  m.values[ProbeValue::kThroughput] = best;
  m.values[ProbeValue::kPerStreamCeiling] = ceiling;
  m.values[ProbeValue::kStreams] = saturating ? *saturating : steps.back().streams;
  if (saturating) m.values[ProbeValue::kSaturatingStreams] = *saturating;
  m.verdicts[Verdict::kStreamLimited] = !saturating && steps.size() >= 2;
  return m;
}

bool WantsSweep(const ProbeRecord& tcp_multi) {
  if (!tcp_multi.success) return false;
  for (Verdict v : {Verdict::kStreamLimited, Verdict::kCpuBound}) {
    auto it = tcp_multi.verdicts.find(v);
    if (it != tcp_multi.verdicts.end() && it->second) return true;
  }
  return false;
}

Result<std::vector<probe::Measurement>> TcpCopyProbe::Run(const probe::ProbeContext& context) {
  std::vector<probe::Measurement> out;
  for (const TcpSession& session : sessions_) {
    // The rung's own run of this meeting is one of the two modes; the other
    // runs now, in the same direction pattern with the same block size.
    std::vector<probe::Measurement> rung;
    for (const auto& [direction, m] : rung_) {
      if (session.direction == probe::Direction::kBoth || session.direction == direction) {
        rung.push_back(m);
      }
    }
    TcpSession other = session;
    other.candidate.mode = CopyComparisonRuns(session);
    auto result = probe::RunTcpProbe(Options(settings_, self_, peer_, other), context);
    if (!result.ok()) return Unexpected{result.error()};
    const std::vector<probe::Measurement> measured = TcpMeasurements(*result);
    const bool ran_copy = other.candidate.mode == kCopyComparisonMode;
    for (probe::Measurement& m : CopyComparisonMeasurements(session, ran_copy ? measured : rung,
                                                            ran_copy ? rung : measured)) {
      out.push_back(std::move(m));
    }
  }
  return out;
}

Result<std::vector<probe::Measurement>> TcpSweepProbe::Run(const probe::ProbeContext& context) {
  std::map<probe::Direction, std::vector<SweepStep>> steps;
  for (const TcpSession& session : sessions_) {
    for (uint32_t count : counts_) {
      probe::TcpProbeOptions options = Options(settings_, self_, peer_, session);
      options.streams = count;
      auto result = probe::RunTcpProbe(options, context);
      if (!result.ok()) return Unexpected{result.error()};
      for (const auto& d : result->directions) {
        steps[d.direction].push_back({count, d.bytes_per_second});
      }
    }
  }
  std::vector<probe::Measurement> out;
  for (auto& [direction, list] : steps) {
    out.push_back(SweepMeasurement(direction, list));
    for (const TcpSession& session : sessions_) {
      if (session.direction == direction || session.direction == probe::Direction::kBoth) {
        out.back().info = SessionInfo(session);
      }
    }
  }
  return out;
}

double TcpRunSeconds(const TcpLadderSettings& settings) {
  return settings.duration_seconds + settings.warmup_seconds + 1;
}

double CopyComparisonSeconds(const TcpLadderSettings& settings) {
  return Sessions(settings) * TcpRunSeconds(settings);
}

double SweepSeconds(const TcpLadderSettings& settings, size_t steps) {
  return Sessions(settings) * static_cast<double>(steps) * TcpRunSeconds(settings);
}

}  // namespace fabric
