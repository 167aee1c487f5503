// The ladder's passive layers from one scrape's metric families: the fabric interface's line
// rate (netdev), its PCIe path (pcie, joined through fabric_pcie_netdev_info as the rules do),
// the real bulk transfers per peer and direction (flows) and the socket-buffer maxima (sockbuf).
// The same families /metrics serves, so the page and Prometheus never disagree.
#pragma once

#include <prometheus/metric_family.h>

#include <map>
#include <string>
#include <vector>

#include "exporter/ladder/ladder_model.h"

namespace fabric::ladder {

// True for the families FactsFromFamilies reads: all of a scrape that a ladder needs, so the
// exporter keeps only these between scrapes (a large host's scrape is thousands of series).
bool IsFactFamily(std::string_view name);

// `interface` is the fabric interface; `peer_names` maps a peer's address to its fleet name
// (the flows collector labels flows by address).
PassiveFacts FactsFromFamilies(const std::vector<prometheus::MetricFamily>& families,
                               const std::string& interface,
                               const std::map<std::string, std::string>& peer_names);

}  // namespace fabric::ladder
