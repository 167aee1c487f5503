#include "exporter/path_mesh/mesh_settings.h"

namespace fabric {

MeshSettings ParseMeshSettings(const ConfigNode& section, bool default_enabled) {
  MeshSettings s;
  section.ExpectMapWithKeys({"enabled", "interval", "timeout", "max_peers"});
  s.enabled = section.Bool("enabled").value_or(default_enabled);
  s.interval_seconds = section.DurationSeconds("interval", 1, 3600).value_or(s.interval_seconds);
  s.timeout_seconds = section.DurationSeconds("timeout", 0.001, 10).value_or(s.timeout_seconds);
  s.max_peers = static_cast<uint32_t>(section.Int("max_peers", 1, 256).value_or(s.max_peers));
  // A round waits for its slowest probe; a timeout as long as the interval
  // would let rounds run back to back and the probe rate drift.
  if (s.timeout_seconds >= s.interval_seconds) {
    section.Fail("timeout", "the mesh's timeout must be shorter than its interval");
  }
  return s;
}

}  // namespace fabric
