// Calibration of the scheduled TCP rungs: which send mode (sendfile or copy)
// and block size moves the most on a path. Hosts differ: on one loopback the
// probe's sendfile with 256 KiB blocks moved a third of what copy with 1 MiB
// blocks moved, so a fixed choice would report the tool's mode as the path's
// per-stream ceiling. Each rung and direction to a peer is calibrated with
// short runs of every candidate through the TCP probe, the best one is
// remembered (in the state file, with the results) and re-checked daily, and
// the rung's records say which mode and block size they used.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "active-probes/probe/probe.h"
#include "active-probes/tcp/stream_io.h"
#include "active-probes/tcp/tcp_probe.h"
#include "common/result.h"

namespace fabric {

// One way to drive the streams: the send mode and the bytes per send call.
struct TcpCandidate {
  probe::SendMode mode = probe::SendMode::kSendfile;
  uint32_t block = 256 * 1024;
  bool operator==(const TcpCandidate& other) const = default;
};

// The candidates every calibration measures, in the order it measures them
// (and the order that breaks a tie): sendfile and copy, each at 128 KiB,
// 256 KiB and 1 MiB. The rungs use only these, so the `mode` and
// `block_bytes` labels of their records take only these values.
std::span<const TcpCandidate> TcpCalibrationCandidates();
// What a rung uses before its path is calibrated, or with calibration off:
// sendfile, 256 KiB (the probe's default).
TcpCandidate DefaultTcpCandidate();
// The candidate of the table with this mode name and block size, if any
// (a state file written by another version may name others).
std::optional<TcpCandidate> FindTcpCandidate(std::string_view mode, uint32_t block);

struct TcpCandidateFigure {
  TcpCandidate candidate;
  double bytes_per_second = 0;  // Counted at the receiver over the candidate's window.
};

// What one calibration found for one rung and direction to one peer.
struct TcpCalibration {
  double timestamp_seconds = 0;  // Unix time the calibration ended.
  TcpCandidate chosen;
  std::vector<TcpCandidateFigure> measured;  // In the candidates' order.
};

struct TcpCalibrationSettings {
  bool enabled = true;
  // Each candidate's run: a quarter warm-up, the rest the measured window.
  // Six candidates: six seconds per rung and direction, once a day.
  double candidate_seconds = 1;
  double interval_seconds = 86400;  // Re-checked this often.
};

// Pure: the fastest measured candidate (the earlier one of the table on a
// tie); nullopt when none moved any bytes.
std::optional<TcpCandidate> ChooseTcpCandidate(const std::vector<TcpCandidateFigure>& measured);

// Pure: whether a path with `last` (nullptr: never calibrated) must be
// calibrated at Unix time `now`: never calibrated, older than the interval,
// or chosen a candidate that is not in the table any more.
bool TcpCalibrationDue(const TcpCalibration* last, double now,
                       const TcpCalibrationSettings& settings);

// Seconds one calibration of one rung and direction takes (probe time).
double TcpCalibrationSeconds(const TcpCalibrationSettings& settings);

// Runs every candidate once in `direction` (kSend or kReceive) with `base`'s
// peer, streams and secret, through the TCP probe, and chooses. Errors: the
// probe's (busy, refused, interrupted...) from the first candidate that fails,
// so a half-measured path is not calibrated.
Result<TcpCalibration> CalibrateTcpPath(const probe::TcpProbeOptions& base,
                                        probe::Direction direction,
                                        const TcpCalibrationSettings& settings,
                                        const probe::ProbeContext& context);

}  // namespace fabric
