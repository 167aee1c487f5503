// Path analysis: from every endpoint up to its root port, which link (hop)
// is the narrowest now, what each hop would carry if it trained to what both
// of its ends support, and whether the path is downtrained (a hop below that)
// or slot-limited (the path's capable width is narrower than the endpoint's).
// Pure: the collector builds the device table from sysfs and config space.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fabric {

struct PcieLinkValues {
  std::optional<double> current_speed_gts;
  std::optional<int> current_width;
  std::optional<double> max_speed_gts;
  std::optional<int> max_width;

  bool any() const { return current_speed_gts || current_width || max_speed_gts || max_width; }
};

struct PcieNode {
  std::string address;
  std::string parent;  // Empty: on a root bus (its parent is the host bridge).
  PcieLinkValues link;
  // The Express capability's port type when config space was readable.
  std::optional<int> port_type;
};

// One link: `address` is its downstream end (endpoint, switch upstream port,
// PCIe-to-PCI bridge), `upstream` the port above it (root or switch
// downstream port), empty when the link partner is not visible (a device on a
// virtual machine's root bus).
struct PcieHop {
  std::string address;
  std::string upstream;
  std::optional<double> current_speed_gts;
  std::optional<int> current_width;
  std::optional<double> capable_speed_gts;  // min(child max, parent max)
  std::optional<int> capable_width;
  std::optional<double> current_bytes_per_second;
  std::optional<double> capable_bytes_per_second;
  bool speed_downtrained = false;
  bool width_downtrained = false;
};

struct PciePath {
  std::string endpoint;
  std::vector<std::string> hops;                   // Hop keys (their `address`), endpoint first.
  std::optional<double> current_bytes_per_second;  // Min over hops.
  std::optional<double> capable_bytes_per_second;  // Min over hops.
  std::optional<int> capable_width;                // Narrowest capable width.
  std::string bottleneck;  // Hop with the least current bandwidth; empty if unknown.
  int downtrained_hops = 0;
  bool slot_limited = false;
};

struct PcieTopologyAnalysis {
  std::map<std::string, PcieHop> hops;  // Each link once, by its downstream end.
  std::vector<PciePath> paths;
};

// `nodes` by address; `endpoints` are the devices whose paths matter.
PcieTopologyAnalysis AnalysePciePaths(const std::map<std::string, PcieNode>& nodes,
                                      const std::vector<std::string>& endpoints);

}  // namespace fabric
