// The fleet: the nodes of the fabric, each with the address its responder
// listens on, the interface traffic to it must use, its expected MTU and,
// optionally, where it sits in the topology (rack or leaf switch, plane or
// rail, role), which the rules and dashboards aggregate by.
// Every exporter gets the same list (and its own name), and derives from it
// which peers to probe, so no coordinator is needed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "exporter/config/config_node.h"

namespace fabric {

struct FleetNode {
  std::string name;
  std::string address;    // Fabric IP address (numeric).
  std::string interface;  // Expected fabric interface on that node; may be empty.
  int mtu = 0;            // Expected MTU; 0 when not configured.
  // Topology, each empty when not configured: the rack (or leaf switch) the
  // node hangs off, its plane (or rail) and its role (compute, storage...).
  // Default-initialised so {name, address, interface, mtu} still builds a node.
  std::string rack{};
  std::string plane{};
  std::string role{};
};

struct Fleet {
  std::string self;              // This node's name.
  std::vector<FleetNode> nodes;  // Sorted by name: every node agrees on indices.

  // Index of this node in `nodes`.
  size_t SelfIndex() const;
  const FleetNode& Self() const { return nodes[SelfIndex()]; }
};

// Parses the `fleet` section; nullopt when the config has none. Throws
// ConfigError naming file:line:key for duplicate names or addresses, a
// non-numeric address, an out-of-range MTU, an empty rack/plane/role, or a
// `self` not in the list.
std::optional<Fleet> ParseFleet(const ConfigNode& section);

}  // namespace fabric
