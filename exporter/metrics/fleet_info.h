// The fleet config as series: fabric_fleet_node_info and fabric_fleet_peer_info,
// the joins rules use to find a node's fabric interface and its peers'
// expected paths. Beside the sink rather than the fleet config, so the config
// layer needs nothing from the metrics layer.
#pragma once

#include "exporter/config/fleet.h"
#include "exporter/metrics/metric_sink.h"

namespace fabric {

void AddFleetInfo(const Fleet& fleet, MetricSink& sink);

}  // namespace fabric
