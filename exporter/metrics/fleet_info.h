// The fleet config as series: fabric_fleet_node_info and fabric_fleet_peer_info,
// the joins rules use to find a node's fabric interface and its peers'
// expected paths. Beside the sink rather than the fleet config, so the config
// layer needs nothing from the metrics layer.
#pragma once

#include <set>
#include <string>

#include "exporter/config/fleet.h"
#include "exporter/metrics/metric_sink.h"

namespace fabric {

// fabric_fleet_node_info, and fabric_fleet_peer_info for every peer.
void AddFleetInfo(const Fleet& fleet, MetricSink& sink);

// fabric_fleet_node_info alone: this node's name, interface, address and place.
void AddFleetNodeInfo(const Fleet& fleet, MetricSink& sink);

// fabric_fleet_peer_info for the fleet members named in `peers`: a node above
// the detail bound publishes it only for the peers its other series name, so
// the join series do not grow with the fleet. Names that are not peers (this
// node, "loopback", a storage target) are skipped.
void AddFleetPeerInfo(const Fleet& fleet, const std::set<std::string>& peers, MetricSink& sink);

}  // namespace fabric
