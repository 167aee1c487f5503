// The probe's judgement of its own result: whether it measured the fabric or
// its own harness. Pure functions over a finished TcpProbeResult.
#pragma once

#include <string>

#include "active-probes/tcp/tcp_probe.h"

namespace fabric::probe {

inline constexpr double kCpuBoundFraction = 0.90;
inline constexpr double kWindowLimitedFraction = 0.50;
// A stream at this fraction of (peer's receive window / RTT) or more is held
// by the window.
inline constexpr double kWindowBoundRatio = 0.70;
// NIC bytes beyond what the probe's own segments (with headers and ACKs)
// explain, as a fraction of the probe's bytes, before `contended` is set.
inline constexpr double kContendedExcess = 0.10;
// Senders with data queued less than this share of the window were starved by their own
// application: a busy host CPU then explains the rate. Above it the network (or the window)
// set the pace and a busy host did not.
inline constexpr double kSenderStarvedBelow = 0.80;

void EvaluateSelfChecks(TcpProbeResult& r);

// How the self-check notes of every probe write numbers: "37%", "3.90 Gbit/s".
std::string PercentText(double fraction);
std::string GbpsText(double bytes_per_second);

}  // namespace fabric::probe
