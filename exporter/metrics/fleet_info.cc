#include "exporter/metrics/fleet_info.h"

#include <algorithm>
#include <string>
#include <utility>

namespace fabric {
namespace {

// The topology labels of `node`, only those configured: an unset key is an
// absent label, not an empty one.
void AddTopology(const FleetNode& node, LabelPairs& labels) {
  for (auto [name, value] : {std::pair{"rack", &node.rack}, std::pair{"plane", &node.plane},
                             std::pair{"role", &node.role}}) {
    if (!value->empty()) labels.emplace_back(name, *value);
  }
}

void AddPeerInfo(const FleetNode& self, const FleetNode& peer, MetricSink& sink) {
  // A path carries the smaller of its two ends' MTUs.
  int path_mtu =
      self.mtu > 0 && peer.mtu > 0 ? std::min(self.mtu, peer.mtu) : std::max(self.mtu, peer.mtu);
  LabelPairs peer_labels = {{"peer", peer.name},
                            {"address", peer.address},
                            {"expected_interface", self.interface},
                            {"expected_mtu", path_mtu > 0 ? std::to_string(path_mtu) : ""}};
  AddTopology(peer, peer_labels);  // The peer's place, so paths group by target rack.
  sink.Info("fabric_fleet_peer_info",
            "A peer of this node in the fleet config, with the interface and MTU traffic to it "
            "is expected to use, and the peer's rack, plane and role where configured.",
            std::move(peer_labels));
}

}  // namespace

void AddFleetNodeInfo(const Fleet& fleet, MetricSink& sink) {
  const FleetNode& self = fleet.Self();
  LabelPairs node_labels = {{"node", self.name},
                            {"fabric_interface", self.interface},
                            {"fabric_address", self.address},
                            {"expected_mtu", self.mtu > 0 ? std::to_string(self.mtu) : ""}};
  AddTopology(self, node_labels);
  sink.Info("fabric_fleet_node_info",
            "This exporter's node in the fleet config: its name, fabric interface and address, "
            "and its rack, plane and role where configured. Join on instance to name a node in "
            "rules.",
            std::move(node_labels));
  sink.Info("fabric_fleet_digest_info",
            "The digest of the fleet list this node plans with (the first 16 hex digits of a "
            "SHA-256 over every node's keys in name order). Every node of one fleet publishes "
            "the same digest; peers compare it before they probe each other.",
            {{"digest", fleet.digest}});
}

void AddFleetPeerInfo(const Fleet& fleet, const std::set<std::string>& peers, MetricSink& sink) {
  const FleetNode& self = fleet.Self();
  for (const auto& peer : fleet.nodes) {
    if (peer.name != self.name && peers.count(peer.name) > 0) AddPeerInfo(self, peer, sink);
  }
}

void AddFleetInfo(const Fleet& fleet, MetricSink& sink) {
  AddFleetNodeInfo(fleet, sink);
  const FleetNode& self = fleet.Self();
  for (const auto& peer : fleet.nodes) {
    if (peer.name != self.name) AddPeerInfo(self, peer, sink);
  }
}

}  // namespace fabric
