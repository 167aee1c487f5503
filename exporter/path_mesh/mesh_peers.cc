#include "exporter/path_mesh/mesh_peers.h"

#include <algorithm>

namespace fabric {
namespace {

void SortByRank(std::vector<FleetNode>& nodes, std::string_view self) {
  std::sort(nodes.begin(), nodes.end(), [self](const FleetNode& a, const FleetNode& b) {
    const uint64_t ra = MeshRank(self, a.name);
    const uint64_t rb = MeshRank(self, b.name);
    return ra != rb ? ra < rb : a.name < b.name;
  });
}

}  // namespace

uint64_t MeshRank(std::string_view self, std::string_view peer) {
  uint64_t h = 14695981039346656037ull;
  auto mix = [&h](unsigned char c) {
    h ^= c;
    h *= 1099511628211ull;
  };
  for (char c : self) mix(static_cast<unsigned char>(c));
  mix(0);
  for (char c : peer) mix(static_cast<unsigned char>(c));
  // FNV alone barely moves the high bits for names that differ in their
  // last character (n017, n018): the finaliser of MurmurHash3 spreads them.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

std::vector<FleetNode> ChooseMeshPeers(const Fleet& fleet, size_t max_peers) {
  const FleetNode& self = fleet.Self();
  std::vector<FleetNode> local, other;
  for (const FleetNode& node : fleet.nodes) {
    if (node.name == self.name) continue;
    (!self.rack.empty() && node.rack == self.rack ? local : other).push_back(node);
  }
  SortByRank(local, self.name);
  SortByRank(other, self.name);
  const size_t local_first = other.empty() ? max_peers : (max_peers + 1) / 2;
  std::vector<FleetNode> chosen;
  size_t next_local = 0;
  while (chosen.size() < max_peers && next_local < local.size() && next_local < local_first) {
    chosen.push_back(local[next_local++]);
  }
  for (size_t i = 0; i < other.size() && chosen.size() < max_peers; ++i) {
    chosen.push_back(other[i]);
  }
  while (chosen.size() < max_peers && next_local < local.size()) {
    chosen.push_back(local[next_local++]);
  }
  return chosen;
}

}  // namespace fabric
