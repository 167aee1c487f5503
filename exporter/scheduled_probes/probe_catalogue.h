// The producer table: every probe kind the exporter runs, with the rungs,
// values and verdicts it declares (active-probes/probe/probe.h), and the
// catalogue as JSON for the tooling (`fabric_exporter --print-probe-catalogue`):
// the rules and dashboards lints accept a fabric_probe_* series only when it
// has a producer here.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "active-probes/probe/probe.h"

namespace fabric {

std::span<const probe::ProbeDeclaration* const> ProbeDeclarations();

// The rungs, kinds, values and verdicts of ProbeDeclarations() that produce
// `value` / `verdict` (by rung label, in rung-table order).
std::vector<probe::Rung> ProducersOf(probe::ProbeValue value);
std::vector<probe::Rung> ProducersOf(probe::Verdict verdict);

// {"rungs":[...],"values":[...],"verdicts":[...],"families":[...],"reasons":[...]}
std::string ProbeCatalogueJson();

}  // namespace fabric
