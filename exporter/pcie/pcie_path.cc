#include "exporter/pcie/pcie_path.h"

#include <algorithm>

#include "common/parse/pcie_regs.h"
#include "exporter/pcie/pcie_bandwidth.h"

namespace fabric {
namespace {

// Deeper than any real hierarchy; guards against a cyclic table.
constexpr size_t kMaxDepth = 64;

template <typename T>
std::optional<T> MinKnown(std::optional<T> a, std::optional<T> b) {
  if (a && b) return std::min(*a, *b);
  return a ? a : b;
}

PcieHop MakeHop(const PcieNode& child, const PcieNode* parent) {
  PcieHop hop;
  hop.address = child.address;
  const PcieLinkValues& c = child.link;
  PcieLinkValues p = parent ? parent->link : PcieLinkValues{};
  if (parent) hop.upstream = parent->address;
  // Both ends report the same trained state; the downstream end is preferred
  // because root ports of some chipsets leave LnkSta stale after hot-plug.
  hop.current_speed_gts = c.current_speed_gts ? c.current_speed_gts : p.current_speed_gts;
  hop.current_width = c.current_width ? c.current_width : p.current_width;
  hop.capable_speed_gts = MinKnown(c.max_speed_gts, p.max_speed_gts);
  hop.capable_width = MinKnown(c.max_width, p.max_width);
  if (hop.current_speed_gts && hop.current_width) {
    hop.current_bytes_per_second =
        PcieLinkBytesPerSecond(*hop.current_speed_gts, *hop.current_width);
  }
  if (hop.capable_speed_gts && hop.capable_width) {
    hop.capable_bytes_per_second =
        PcieLinkBytesPerSecond(*hop.capable_speed_gts, *hop.capable_width);
  }
  hop.speed_downtrained = hop.current_speed_gts && hop.capable_speed_gts &&
                          *hop.current_speed_gts + 1e-9 < *hop.capable_speed_gts;
  hop.width_downtrained =
      hop.current_width && hop.capable_width && *hop.current_width < *hop.capable_width;
  return hop;
}

}  // namespace

PcieTopologyAnalysis AnalysePciePaths(const std::map<std::string, PcieNode>& nodes,
                                      const std::vector<std::string>& endpoints) {
  PcieTopologyAnalysis out;
  for (const auto& endpoint : endpoints) {
    auto found = nodes.find(endpoint);
    if (found == nodes.end()) continue;
    std::vector<const PcieNode*> chain = {&found->second};
    while (!chain.back()->parent.empty() && chain.size() < kMaxDepth) {
      auto parent = nodes.find(chain.back()->parent);
      if (parent == nodes.end()) break;
      chain.push_back(&parent->second);
    }

    PciePath path;
    path.endpoint = endpoint;
    // Links alternate with the internal buses of switches: endpoint-link-port,
    // switch upstream port-(internal bus)-switch downstream port-link-... The
    // port type, when config space gave it, says which end a device is;
    // otherwise the alternation does, counted from the endpoint. A device
    // without any link attributes is conventional PCI: no link of its own.
    for (size_t i = 0; i < chain.size();) {
      const PcieNode& node = *chain[i];
      bool upstream_facing = node.port_type ? IsUpstreamFacing(*node.port_type) : true;
      if (!node.link.any() || !upstream_facing) {
        ++i;
        continue;
      }
      const PcieNode* partner = i + 1 < chain.size() ? chain[i + 1] : nullptr;
      auto it = out.hops.find(node.address);
      if (it == out.hops.end()) it = out.hops.emplace(node.address, MakeHop(node, partner)).first;
      path.hops.push_back(node.address);
      i += 2;
    }

    for (const auto& key : path.hops) {
      const PcieHop& hop = out.hops.at(key);
      if (hop.current_bytes_per_second &&
          (!path.current_bytes_per_second ||
           *hop.current_bytes_per_second < *path.current_bytes_per_second)) {
        path.current_bytes_per_second = hop.current_bytes_per_second;
        path.bottleneck = key;
      }
      path.capable_bytes_per_second =
          MinKnown(path.capable_bytes_per_second, hop.capable_bytes_per_second);
      path.capable_width = MinKnown(path.capable_width, hop.capable_width);
      if (hop.speed_downtrained || hop.width_downtrained) ++path.downtrained_hops;
    }
    const auto& endpoint_max = found->second.link.max_width;
    path.slot_limited = path.capable_width && endpoint_max && *path.capable_width < *endpoint_max;
    out.paths.push_back(std::move(path));
  }
  return out;
}

}  // namespace fabric
