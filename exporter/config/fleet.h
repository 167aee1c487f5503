// The fleet: the nodes of the fabric, each with the address its responder
// listens on, the interface traffic to it must use, its expected MTU and,
// optionally, where it sits in the topology (rack or leaf switch, plane or
// rail, role), which the rules and dashboards aggregate by.
// Every exporter gets the same list (and its own name), and derives from it
// which peers to probe, so no coordinator is needed. The list is inline in
// the config (`fleet.nodes`) or in a file of its own (`fleet.nodes_file`,
// YAML or CSV) that every node shares unchanged; its digest is what peers
// compare before they probe each other (docs/scale.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>
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
  // FleetDigest(nodes): what this node believes the fleet is.
  std::string digest;
  // The nodes file as the config names it, resolved against the config's
  // directory; empty for an inline list.
  std::string nodes_file;

  // Index of this node in `nodes`.
  size_t SelfIndex() const;
  const FleetNode& Self() const { return nodes[SelfIndex()]; }
};

// The keys of one node, in the order a nodes file's CSV header suggests.
inline constexpr std::string_view kFleetNodeKeys[] = {"name", "address", "interface", "mtu",
                                                      "rack", "plane",   "role"};

// The canonical text of a numeric address ("FE80::01" and "fe80::1" are one
// address, as inet_ntop writes it); empty when `address` is not numeric.
std::string CanonicalAddress(const std::string& address);

// The fleet list's digest: the first 16 hex digits of the SHA-256 of every
// node's keys (addresses in their canonical form) in name order. `self` is
// not part of it, so every node of one fleet publishes the same digest; the
// same nodes listed in another order, or in CSV instead of YAML, give the
// same digest; any change to a node's keys gives another.
std::string FleetDigest(const std::vector<FleetNode>& nodes);

// A YAML nodes file holding `nodes` (one flow mapping per line, every string
// quoted), preceded by `comment` lines as `# ` comments. ParseFleetNodesText
// reads it back to the same nodes.
std::string FormatFleetNodesYaml(const std::vector<FleetNode>& nodes,
                                 const std::vector<std::string>& comment);

// Parses the `fleet` section; nullopt when the config has none. The list is
// `nodes` (inline) or `nodes_file` (YAML with a top-level `nodes` list, or CSV
// with a header naming the keys when the name ends in .csv), exactly one of
// the two. Throws ConfigError naming file:line:key for an unreadable nodes
// file, duplicate names or addresses, a non-numeric address, an
// out-of-range MTU, an empty rack/plane/role, or a `self` not in the list.
std::optional<Fleet> ParseFleet(const ConfigNode& section);

// The nodes of a nodes file's text (YAML, or CSV when `csv`), validated and
// sorted by name; `file` names it in errors. Throws ConfigError.
std::vector<FleetNode> ParseFleetNodesText(const std::string& text, const std::string& file,
                                           bool csv);

}  // namespace fabric
