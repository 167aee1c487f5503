// The RDMA probe's judgement of its own result, in the TCP probe's
// vocabulary: did it measure the fabric or its own harness? Pure function over
// a finished result.
#pragma once

#include "active-probes/rdma/rdma_probe.h"

namespace fabric::probe {

// Below this mean send-queue fill the poster, not the fabric, set the pace.
inline constexpr double kRdmaStarvedQueueFraction = 0.5;
// Aggregate under this fraction of the port rate counts as below line.
inline constexpr double kRdmaBelowLineFraction = 0.9;
// Per-packet overhead port_xmit_data may count beyond the payload (RoCE v2
// headers, ICRC, ACK traffic), per active-MTU packet.
inline constexpr double kRdmaHeaderBytesPerPacket = 90;
// Port bytes beyond what the probe explains, as a fraction, before
// `contended` is set (the TCP probe's threshold): our port's transmit side or
// the responder's receive side, as the responder reports it over the window.
inline constexpr double kRdmaContendedExcess = 0.10;

// mean_outstanding_fraction: from RdmaRunStats.
void EvaluateRdmaSelfChecks(RdmaProbeResult& r, double mean_outstanding_fraction);

}  // namespace fabric::probe
