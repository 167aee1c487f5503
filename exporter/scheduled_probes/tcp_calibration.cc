#include "exporter/scheduled_probes/tcp_calibration.h"

#include <array>
#include <chrono>

namespace fabric {
namespace {

using probe::SendMode;

constexpr uint32_t kKiB = 1024;

// clang-format off
constexpr std::array<TcpCandidate, 6> kCandidates = {{
  {SendMode::kSendfile, 128 * kKiB},
  {SendMode::kSendfile, 256 * kKiB},
  {SendMode::kSendfile, 1024 * kKiB},
  {SendMode::kCopy,     128 * kKiB},
  {SendMode::kCopy,     256 * kKiB},
  {SendMode::kCopy,     1024 * kKiB},
}};
// clang-format on

std::chrono::milliseconds Milliseconds(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

}  // namespace

std::span<const TcpCandidate> TcpCalibrationCandidates() { return kCandidates; }

TcpCandidate DefaultTcpCandidate() { return {SendMode::kSendfile, 256 * kKiB}; }

std::optional<TcpCandidate> FindTcpCandidate(std::string_view mode, uint32_t block) {
  for (const TcpCandidate& c : kCandidates) {
    if (probe::SendModeName(c.mode) == mode && c.block == block) return c;
  }
  return std::nullopt;
}

std::optional<TcpCandidate> ChooseTcpCandidate(const std::vector<TcpCandidateFigure>& measured) {
  std::optional<TcpCandidate> best;
  double best_rate = 0;
  for (const TcpCandidateFigure& f : measured) {
    if (f.bytes_per_second > best_rate) {
      best = f.candidate;
      best_rate = f.bytes_per_second;
    }
  }
  return best;
}

bool TcpCalibrationDue(const TcpCalibration* last, double now,
                       const TcpCalibrationSettings& settings) {
  if (!settings.enabled) return false;
  if (last == nullptr || last->timestamp_seconds <= 0) return true;
  if (!FindTcpCandidate(probe::SendModeName(last->chosen.mode), last->chosen.block)) return true;
  // A clock stepped back by more than the interval also re-checks.
  const double age = now - last->timestamp_seconds;
  return age >= settings.interval_seconds || age < -settings.interval_seconds;
}

double TcpCalibrationSeconds(const TcpCalibrationSettings& settings) {
  return settings.enabled ? settings.candidate_seconds * static_cast<double>(kCandidates.size())
                          : 0;
}

Result<TcpCalibration> CalibrateTcpPath(const probe::TcpProbeOptions& base,
                                        probe::Direction direction,
                                        const TcpCalibrationSettings& settings,
                                        const probe::ProbeContext& context) {
  TcpCalibration out;
  for (const TcpCandidate& candidate : kCandidates) {
    probe::TcpProbeOptions options = base;
    options.direction = direction;
    options.mode = candidate.mode;
    options.block = candidate.block;
    options.warmup = Milliseconds(settings.candidate_seconds / 4);
    options.duration = Milliseconds(settings.candidate_seconds * 3 / 4);
    auto run = probe::RunTcpProbe(options, context);
    if (!run.ok()) return Unexpected{run.error()};
    double rate = 0;
    for (const auto& d : run->directions) {
      if (d.direction == direction) rate = d.bytes_per_second;
    }
    out.measured.push_back({candidate, rate});
  }
  auto chosen = ChooseTcpCandidate(out.measured);
  if (!chosen) return MakeError("TCP calibration: no candidate moved any bytes");
  out.chosen = *chosen;
  out.timestamp_seconds = context.clock.WallSeconds();
  return out;
}

}  // namespace fabric
