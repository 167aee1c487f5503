// The exporter's ladders: one per path from this node (each fleet peer, or "loopback"), built
// from the latest scrape's families and the probe results, for the page at "/".
#pragma once

#include <prometheus/metric_family.h>

#include <vector>

#include "exporter/config/fleet.h"
#include "exporter/ladder/ladder_facts.h"
#include "exporter/ladder/ladder_model.h"
#include "exporter/scheduled_probes/result_store.h"

namespace fabric::ladder {

// `history`: recent scrapes of the transfer counters, which the shapes of real transfers are
// judged over (FactsFromFamilies); nullptr judges what the families show now.
std::vector<Ladder> NodeLadders(const Fleet& fleet, bool loopback,
                                const std::vector<prometheus::MetricFamily>& families,
                                const std::vector<ProbeRecord>& records, double now_seconds,
                                const CounterHistory* history = nullptr);

// A page of 999 ladders helps nobody: in a large fleet keep the `limit` paths whose network
// binds lowest (paths with no measurement last), in that order. Returns a sentence saying what
// was left out, or "" when nothing was.
std::string KeepSlowestPaths(std::vector<Ladder>& ladders, size_t limit);

}  // namespace fabric::ladder
