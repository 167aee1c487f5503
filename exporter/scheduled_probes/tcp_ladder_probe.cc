#include "exporter/scheduled_probes/tcp_ladder_probe.h"

#include <algorithm>
#include <cstdio>

#include "common/log.h"
#include "exporter/scheduled_probes/probe_adapter.h"

namespace fabric {

using probe::ProbeValue;
using probe::Rung;
using probe::Verdict;

namespace {

// "sendfile/256K=1950MB/s copy/1024K=5900MB/s ...": what a calibration measured, for the log.
std::string Figures(const TcpCalibration& c) {
  std::string out;
  for (const auto& f : c.measured) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%s/%uK=%.0fMB/s", out.empty() ? "" : " ",
                  std::string(probe::SendModeName(f.candidate.mode)).c_str(),
                  f.candidate.block / 1024, f.bytes_per_second / 1e6);
    out += buf;
  }
  return out;
}

}  // namespace

const probe::ProbeDeclaration& TcpRungDeclaration() {
  static const probe::ProbeDeclaration declaration{
      "tcp",
      {Rung::kTcpMulti, Rung::kTcpSingle},
      {ProbeValue::kThroughput, ProbeValue::kBytes, ProbeValue::kWindow, ProbeValue::kStreams,
       ProbeValue::kStreamMin, ProbeValue::kStreamMedian, ProbeValue::kStreamMax,
       ProbeValue::kRetransmits, ProbeValue::kRtt, ProbeValue::kMinRtt, ProbeValue::kCwnd,
       ProbeValue::kRwndLimited, ProbeValue::kSndbufLimited, ProbeValue::kMss,
       ProbeValue::kLocalCpu, ProbeValue::kRemoteCpu, ProbeValue::kPathLineRate},
      {Verdict::kCpuBound, Verdict::kContended, Verdict::kStreamLimited,
       Verdict::kReceiverWindowLimited, Verdict::kSendBufferLimited},
  };
  return declaration;
}

std::vector<probe::Measurement> TcpMeasurements(const probe::TcpProbeResult& result) {
  std::vector<probe::Measurement> out;
  for (const auto& d : result.directions) {
    probe::Measurement m;
    m.direction = d.direction;
    auto& v = m.values;
    v[ProbeValue::kThroughput] = d.bytes_per_second;
    v[ProbeValue::kBytes] = static_cast<double>(d.bytes);
    v[ProbeValue::kWindow] = d.window_seconds;
    v[ProbeValue::kStreams] = d.streams;
    v[ProbeValue::kStreamMin] = d.per_stream.min;
    v[ProbeValue::kStreamMedian] = d.per_stream.median;
    v[ProbeValue::kStreamMax] = d.per_stream.max;
    v[ProbeValue::kRetransmits] = static_cast<double>(d.retransmits);
    v[ProbeValue::kRtt] = d.rtt_seconds;
    if (d.min_rtt_seconds > 0) v[ProbeValue::kMinRtt] = d.min_rtt_seconds;
    v[ProbeValue::kCwnd] = static_cast<double>(d.cwnd_segments * d.mss);
    v[ProbeValue::kRwndLimited] = d.rwnd_limited_fraction;
    v[ProbeValue::kSndbufLimited] = d.sndbuf_limited_fraction;
    v[ProbeValue::kMss] = static_cast<double>(d.mss);
    v[ProbeValue::kLocalCpu] = result.local_cpu.max_thread_cpu;
    v[ProbeValue::kRemoteCpu] = result.remote_cpu.max_thread_cpu;
    if (result.link_bits_per_second > 0 && result.responder_link_bits_per_second > 0) {
      v[ProbeValue::kPathLineRate] =
          std::min(result.link_bits_per_second, result.responder_link_bits_per_second) / 8;
    }
    const auto& c = result.checks;
    m.verdicts = {{Verdict::kCpuBound, c.cpu_bound},
                  {Verdict::kContended, c.contended},
                  {Verdict::kStreamLimited, c.stream_limited},
                  {Verdict::kReceiverWindowLimited, c.receiver_window_limited},
                  {Verdict::kSendBufferLimited, c.send_buffer_limited}};
    if (!result.iface.empty()) m.info["interface"] = result.iface;
    out.push_back(std::move(m));
  }
  return out;
}

std::optional<std::vector<TcpSession>> TcpRungSessions(Rung rung, const TcpLadderSettings& settings,
                                                       const std::string& peer,
                                                       const ResultStore& calibrations) {
  if (!settings.calibration.enabled) {
    return std::vector<TcpSession>{{probe::Direction::kBoth, DefaultTcpCandidate()}};
  }
  std::vector<TcpSession> sessions;
  for (probe::Direction direction : probe::InfoOf(rung).directions) {
    const std::optional<TcpCalibration> c = calibrations.Calibration({rung, peer, direction});
    if (!c) return std::nullopt;
    sessions.push_back({direction, c->chosen});
  }
  return sessions;
}

std::map<std::string, std::string> SessionInfo(const TcpSession& session) {
  return {{"mode", std::string(probe::SendModeName(session.candidate.mode))},
          {"block_bytes", std::to_string(session.candidate.block)},
          {"directions",
           session.direction == probe::Direction::kBoth ? "both_at_once" : "one_at_a_time"}};
}

void LabelSession(std::vector<probe::Measurement>& measured, const TcpSession& session) {
  for (probe::Measurement& m : measured) {
    for (auto& [name, value] : SessionInfo(session)) m.info[name] = value;
  }
}

TcpRungProbe::TcpRungProbe(Rung rung, const TcpLadderSettings& settings, const FleetNode& self,
                           const FleetNode& peer, ResultStore* calibrations)
    : rung_(rung), settings_(settings), self_(self), peer_(peer), calibrations_(calibrations) {}

Result<TcpCandidate> TcpRungProbe::CandidateFor(probe::Direction direction,
                                                const probe::TcpProbeOptions& options,
                                                const probe::ProbeContext& context) {
  const ProbeKey key{rung_, target(), direction};
  const std::optional<TcpCalibration> last = calibrations_->Calibration(key);
  if (!TcpCalibrationDue(last ? &*last : nullptr, context.clock.WallSeconds(),
                         settings_.calibration)) {
    return last->chosen;
  }
  // A failed calibration fails the rung the same way (the peer busy,
  // refused...): the next round calibrates again.
  auto calibrated = CalibrateTcpPath(options, direction, settings_.calibration, context);
  if (!calibrated.ok()) return Unexpected{calibrated.error()};
  log::Info("tcp calibration", {{"probe", std::string(probe::RungLabel(rung_))},
                                {"peer", target()},
                                {"direction", std::string(probe::DirectionName(direction))},
                                {"mode", std::string(probe::SendModeName(calibrated->chosen.mode))},
                                {"block", std::to_string(calibrated->chosen.block)},
                                {"measured", Figures(*calibrated)}});
  calibrations_->SetCalibration(key, *calibrated);
  return calibrated->chosen;
}

Result<std::vector<probe::Measurement>> TcpRungProbe::Run(const probe::ProbeContext& context) {
  probe::TcpProbeOptions options;
  options.peer = {peer_.address, settings_.port};
  options.bind_address = self_.address;
  options.secret = settings_.secret;
  options.streams = rung_ == Rung::kTcpSingle ? 1 : settings_.streams;
  options.duration =
      std::chrono::milliseconds(static_cast<int64_t>(settings_.duration_seconds * 1000));
  options.warmup = std::chrono::milliseconds(static_cast<int64_t>(settings_.warmup_seconds * 1000));
  options.busy_retries = 2;
  options.pin = false;  // The exporter shares the host; let the scheduler place threads.
  auto run = [&](const TcpSession& session) -> Result<std::vector<probe::Measurement>> {
    probe::TcpProbeOptions o = options;
    o.direction = session.direction;
    o.mode = session.candidate.mode;
    o.block = session.candidate.block;
    auto result = probe::RunTcpProbe(o, context);
    if (!result.ok()) return Unexpected{result.error()};
    std::vector<probe::Measurement> measured = TcpMeasurements(*result);
    LabelSession(measured, session);
    return measured;
  };
  if (calibrations_ == nullptr || !settings_.calibration.enabled) {
    // One mode for both directions: one session measures both at once.
    return run({probe::Direction::kBoth, DefaultTcpCandidate()});
  }
  // Calibrated: each direction has its own mode and runs alone, as the
  // reference tools measure a path (both at once share the hosts' CPUs).
  std::vector<probe::Measurement> out;
  for (probe::Direction direction : probe::InfoOf(rung_).directions) {
    auto used = CandidateFor(direction, options, context);
    if (!used.ok()) return Unexpected{used.error()};
    auto measured = run({direction, *used});
    if (!measured.ok()) return Unexpected{measured.error()};
    for (probe::Measurement& m : *measured) out.push_back(std::move(m));
  }
  return out;
}

std::vector<ProbeKey> TcpLadderKeys(const TcpLadderSettings& settings, const std::string& peer) {
  std::vector<ProbeKey> keys = KeysOf(Rung::kTcpMulti, peer);
  if (settings.single_stream) {
    for (auto& key : KeysOf(Rung::kTcpSingle, peer)) keys.push_back(std::move(key));
  }
  return keys;
}

ProbeOutcome RunTcpRung(Rung rung, const TcpLadderSettings& settings, const FleetNode& self,
                        const FleetNode& peer, const probe::ProbeContext& context,
                        ResultStore& store) {
  TcpRungProbe probe(rung, settings, self, peer, &store);
  return RunAndRecord(probe, context, store);
}

bool SingleStreamDue(const TcpLadderSettings& settings, uint64_t meeting) {
  return settings.single_stream &&
         meeting % std::max<uint32_t>(settings.single_stream_every, 1) == 0;
}

uint64_t FirstMeeting(const TcpLadderSettings& settings, std::string_view self,
                      std::string_view peer) {
  const uint32_t every = std::max<uint32_t>(settings.single_stream_every, 1);
  // FNV-1a over "self NUL peer": the same in every build and run (std::hash
  // need not be), so a restart keeps each pair's phase and the simulator is
  // deterministic.
  uint64_t hash = 14695981039346656037ull;
  auto mix = [&hash](std::string_view text) {
    for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  };
  mix(self);
  mix(std::string_view("\0", 1));
  mix(peer);
  return hash % every;
}

bool PairComparisonTurn(const TcpLadderSettings& settings, uint64_t meeting) {
  const uint32_t every = std::max<uint32_t>(settings.single_stream_every, 1);
  return meeting % every == 1 % every;
}

double TcpLadderSeconds(const TcpLadderSettings& settings, bool with_single) {
  // Calibrated, each direction runs in a session of its own; uncalibrated, one
  // session measures both at once. A second per session for its set-up.
  const double sessions = settings.calibration.enabled ? 2 : 1;
  const double rungs = with_single && settings.single_stream ? 2 : 1;
  return rungs * sessions * (settings.duration_seconds + settings.warmup_seconds + 1);
}

ProbeOutcome RunTcpLadder(const TcpLadderSettings& settings, const FleetNode& self,
                          const FleetNode& peer, const probe::ProbeContext& context,
                          ResultStore& store, bool with_single) {
  ProbeOutcome multi = RunTcpRung(Rung::kTcpMulti, settings, self, peer, context, store);
  if (multi != ProbeOutcome::kSuccess || !settings.single_stream || !with_single) return multi;
  return RunTcpRung(Rung::kTcpSingle, settings, self, peer, context, store);
}

}  // namespace fabric
