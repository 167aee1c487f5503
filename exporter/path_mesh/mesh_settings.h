// The `probes.mesh` config section: how often the mesh probes its peers, how
// long a probe may wait for the answer, and how many peers it keeps.
#pragma once

#include <cstdint>

#include "exporter/config/config_node.h"

namespace fabric {

struct MeshSettings {
  bool enabled = false;  // Default: on when the TCP probe is (its responders answer).
  double interval_seconds = 5;
  // A connect that has no answer by then counts as lost. Under the kernel's
  // first SYN retransmission (1 s), so one lost SYN or SYN-ACK is one lost
  // probe rather than an RTT of a second.
  double timeout_seconds = 0.5;
  uint32_t max_peers = 16;
};

// Parses `probes.mesh` (defaults when absent; enabled defaults to
// default_enabled). Throws ConfigError naming file:line:key: unknown keys, an
// interval outside 1 s..1 h, a timeout outside 1 ms..10 s or not below the
// interval, max_peers outside 1..256.
MeshSettings ParseMeshSettings(const ConfigNode& section, bool default_enabled);

}  // namespace fabric
