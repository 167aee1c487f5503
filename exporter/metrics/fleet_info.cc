#include "exporter/metrics/fleet_info.h"

#include <algorithm>
#include <string>

namespace fabric {

void AddFleetInfo(const Fleet& fleet, MetricSink& sink) {
  const FleetNode& self = fleet.Self();
  sink.Info("fabric_fleet_node_info",
            "This exporter's node in the fleet config: its name, fabric interface and address. "
            "Join on instance to name a node in rules.",
            {{"node", self.name},
             {"fabric_interface", self.interface},
             {"fabric_address", self.address},
             {"expected_mtu", self.mtu > 0 ? std::to_string(self.mtu) : ""}});
  for (const auto& peer : fleet.nodes) {
    if (peer.name == self.name) continue;
    // A path carries the smaller of its two ends' MTUs.
    int path_mtu =
        self.mtu > 0 && peer.mtu > 0 ? std::min(self.mtu, peer.mtu) : std::max(self.mtu, peer.mtu);
    sink.Info("fabric_fleet_peer_info",
              "A peer of this node in the fleet config, with the interface and MTU traffic to it "
              "is expected to use.",
              {{"peer", peer.name},
               {"address", peer.address},
               {"expected_interface", self.interface},
               {"expected_mtu", path_mtu > 0 ? std::to_string(path_mtu) : ""}});
  }
}

}  // namespace fabric
