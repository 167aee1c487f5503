// Output of the TCP probe: a human table (default) and JSON (--json) whose
// field names are a stable interface for the exporter and scripts. Rates are
// bytes per second, times seconds.
#pragma once

#include <string>

#include "active-probes/tcp/tcp_probe.h"

namespace fabric::probe {

std::string ResultToJson(const TcpProbeResult& r);
std::string SweepToJson(const SweepResult& s);
std::string ResultToTable(const TcpProbeResult& r);
std::string SweepToTable(const SweepResult& s);
// Errors print through active-probes/probe/error_kinds.h's ErrorToJson.

}  // namespace fabric::probe
