#include "exporter/scheduled_probes/tcp_comparison_probe.h"

#include <algorithm>
#include <map>

namespace fabric {

using probe::ProbeValue;
using probe::Rung;
using probe::Verdict;

namespace {

// A step that adds less than this share over the previous one has stopped
// growing: the measurement noise of one run on a quiet path is a few percent.
constexpr double kGrowthRatio = 1.10;

probe::TcpProbeOptions Options(const TcpLadderSettings& settings, const FleetNode& self,
                               const FleetNode& peer) {
  probe::TcpProbeOptions options;
  options.peer = {peer.address, settings.port};
  options.bind_address = self.address;
  options.secret = settings.secret;
  options.streams = settings.streams;
  options.duration =
      std::chrono::milliseconds(static_cast<int64_t>(settings.duration_seconds * 1000));
  options.warmup = std::chrono::milliseconds(static_cast<int64_t>(settings.warmup_seconds * 1000));
  options.direction = probe::Direction::kBoth;
  options.busy_retries = 2;
  options.pin = false;  // As the rungs: the exporter shares the host.
  return options;
}

}  // namespace

const probe::ProbeDeclaration& TcpCopyDeclaration() {
  // The tcp_multi rung's values and verdicts: the two are read side by side.
  static const probe::ProbeDeclaration declaration = [] {
    probe::ProbeDeclaration d = TcpRungDeclaration();
    d.rungs = {Rung::kTcpMultiCopy};
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
  probe::TcpProbeOptions options = Options(settings_, self_, peer_);
  options.mode = probe::SendMode::kCopy;
  auto result = probe::RunTcpProbe(options, context);
  if (!result.ok()) return Unexpected{result.error()};
  return TcpMeasurements(*result);
}

Result<std::vector<probe::Measurement>> TcpSweepProbe::Run(const probe::ProbeContext& context) {
  std::map<probe::Direction, std::vector<SweepStep>> steps;
  for (uint32_t count : counts_) {
    probe::TcpProbeOptions options = Options(settings_, self_, peer_);
    options.streams = count;
    auto result = probe::RunTcpProbe(options, context);
    if (!result.ok()) return Unexpected{result.error()};
    for (const auto& d : result->directions) {
      steps[d.direction].push_back({count, d.bytes_per_second});
    }
  }
  std::vector<probe::Measurement> out;
  for (auto& [direction, list] : steps) out.push_back(SweepMeasurement(direction, list));
  return out;
}

double TcpRunSeconds(const TcpLadderSettings& settings) {
  return settings.duration_seconds + settings.warmup_seconds + 1;
}

}  // namespace fabric
