// Exposes the ResultStore and the scheduler's counters. Values a probe
// reports become fabric_probe_<name>{kind,target,direction}; their HELP
// comes from the catalogue in probe_results_collector.cc, so a probe cannot
// publish an undocumented series.
#pragma once

#include <functional>
#include <map>
#include <memory>

#include "exporter/metrics/collector.h"
#include "exporter/scheduled_probes/result_store.h"
#include "exporter/scheduled_probes/scheduler.h"

namespace fabric {

// HELP text of a value name, or nullptr for one not in the catalogue.
const char* ProbeValueHelp(std::string_view name);

std::unique_ptr<Collector> MakeProbeResultsCollector(
    const ResultStore& store, std::function<std::map<std::string, ProbeTaskStats>()> stats);

}  // namespace fabric
