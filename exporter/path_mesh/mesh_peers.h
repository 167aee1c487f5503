// Which fleet members the mesh probes: a bounded, deterministic subset, so
// the mesh's series and its load on every responder stay bounded whatever
// the fleet's size, and every node derives its own subset from the shared
// fleet config with no coordinator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "exporter/config/fleet.h"

namespace fabric {

// FNV-1a of "self\0peer", mixed by MurmurHash3's finaliser: stable across builds and machines
// (std::hash is not), and different for every node, so the fleet's subsets are spread (rendezvous
// hashing) and each node is probed by about max_peers others.
uint64_t MeshRank(std::string_view self, std::string_view peer);

// At most max_peers members of the fleet other than itself, never a host
// outside it. When this node has a rack: rack-local peers first, taking at
// most half the slots (rounded up) while other racks exist so the mesh always
// crosses the rack's uplinks, then the other racks' nodes, then more
// rack-local peers if slots remain. Within each group the order is MeshRank's.
std::vector<FleetNode> ChooseMeshPeers(const Fleet& fleet, size_t max_peers);

}  // namespace fabric
