// PathMesh: cheap continuous path health between bandwidth runs. Every
// interval it probes each of its mesh peers once (TimeConnects to their
// responder ports, all at once) and counts the answers and losses in
// PathStats, so a path that starts dropping or slows shows within seconds
// instead of at the next bandwidth round.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/stop_token.h"
#include "exporter/config/fleet.h"
#include "exporter/metrics/collector.h"
#include "exporter/path_mesh/connect_rtt.h"
#include "exporter/path_mesh/mesh_settings.h"
#include "exporter/path_mesh/path_stats.h"

namespace fabric {

struct MeshPeer {
  std::string name;  // the target label
  ConnectTarget target;
};

// One round's probes, in the peers' order (TimeConnects; tests substitute a
// scripted answer).
using MeshProber =
    std::function<std::vector<ConnectResult>(const std::vector<MeshPeer>&, const StopToken&)>;

class PathMesh {
 public:
  PathMesh(std::vector<MeshPeer> peers, MeshSettings settings, MeshProber prober);
  // The fleet's mesh peers (ChooseMeshPeers) at their responder port, probed
  // from this node's fabric address.
  static std::unique_ptr<PathMesh> ForFleet(const Fleet& fleet, const MeshSettings& settings,
                                            uint16_t responder_port);
  ~PathMesh();  // Stops.
  PathMesh(const PathMesh&) = delete;
  PathMesh& operator=(const PathMesh&) = delete;

  // Probes every peer once and records the outcomes.
  void RunRound(const StopToken& stop);
  // A thread running a round every interval until Stop.
  void Start();
  void Stop();

  const std::vector<MeshPeer>& peers() const { return peers_; }
  const PathStats& stats() const { return stats_; }
  // The mesh's metrics (PathStats::Collect); valid while this mesh lives.
  std::unique_ptr<Collector> MakeCollector() const;

 private:
  std::vector<MeshPeer> peers_;
  MeshSettings settings_;
  MeshProber prober_;
  PathStats stats_;
  bool warned_local_error_ = false;  // only the mesh's thread touches it
  StopSource stop_;
  std::thread thread_;
};

}  // namespace fabric
