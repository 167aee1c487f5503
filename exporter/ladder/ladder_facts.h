// The ladder's passive layers from one scrape's metric families: the fabric interface's line
// rate (netdev), its PCIe path (pcie, joined through fabric_pcie_netdev_info as the rules do),
// the real bulk transfers per peer and direction (flows) and the socket-buffer maxima (sockbuf).
// The same families /metrics serves, so the page and Prometheus never disagree.
#pragma once

#include <prometheus/metric_family.h>

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exporter/ladder/ladder_model.h"

namespace fabric::ladder {

// True for the families FactsFromFamilies reads: all of a scrape that a ladder needs, so the
// exporter keeps only these between scrapes (a large host's scrape is thousands of series).
bool IsFactFamily(std::string_view name);

// True for the families the exporter keeps from recent scrapes (CounterHistory): the flows'
// goodput.
bool IsHistoryFamily(std::string_view name);

// Recent scrapes of the history families, oldest first with the latest last, each at its time
// in seconds on any one clock; the page judges real transfers over the last `window_seconds`
// while they move.
struct CounterHistory {
  double window_seconds = 0;
  std::vector<std::pair<double, const std::vector<prometheus::MetricFamily>*>> scrapes;
};

// `interface` is the fabric interface; `peer_names` maps a peer's address to its fleet name
// (the flows collector labels flows by address). Without `history` (one look: `fabric_probe
// ladder`) the windowed transfers are the goodput seen now.
PassiveFacts FactsFromFamilies(const std::vector<prometheus::MetricFamily>& families,
                               const std::string& interface,
                               const std::map<std::string, std::string>& peer_names,
                               const CounterHistory* history = nullptr);

}  // namespace fabric::ladder
