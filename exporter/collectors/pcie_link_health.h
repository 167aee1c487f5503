// The pcie collector's link-health series: what the link sampler counted
// between scrapes (samples, speed and width transitions, time below what
// the link can train to), each link's ASPM states and the kernel's ASPM
// policy. Pure emission.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "exporter/metrics/metric_sink.h"
#include "exporter/pcie/pcie_link_sampler.h"

namespace fabric {

void EmitLinkCounts(const std::map<std::string, PcieLinkCounts>& counts, MetricSink& sink);
void EmitLinkAspm(const std::string& address, const std::vector<std::pair<std::string, bool>>& aspm,
                  MetricSink& sink);
// `policy` as the kernel names it; the value is its code.
void EmitAspmPolicy(const std::string& policy, MetricSink& sink);

}  // namespace fabric
