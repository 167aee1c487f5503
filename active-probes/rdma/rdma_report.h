// Output of the RDMA probe: a human table (default) and JSON (--json) shaped
// like the TCP probe's (peer, duration_seconds, warmup_seconds, bytes,
// bytes_per_second, cpu.local/cpu.responder, self_checks with notes), plus the
// RDMA fields (qps, per_qp, port counters). Rates are bytes per second.
#pragma once

#include <string>

#include "active-probes/rdma/rdma_probe.h"

namespace fabric::probe {

std::string RdmaResultToJson(const RdmaProbeResult& r);
std::string RdmaResultToTable(const RdmaProbeResult& r);
// Errors print through active-probes/probe/error_kinds.h (kind, exit status).

}  // namespace fabric::probe
