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

// Error kinds: the TCP probe's (busy, auth, refused, ...) plus "no-device"
// (no RDMA device here, or none on the source interface) and "no-port" (the
// device has no active port).
std::string RdmaErrorKind(const Error& e);
// {"error":{"kind":"no-device","message":"..."}}
std::string RdmaErrorToJson(const Error& e);
// fabric_probe rdma's exit status for an error: the TCP probe's codes, and
// 9 no-device, 10 no-port.
int RdmaExitCode(const Error& e);

}  // namespace fabric::probe
