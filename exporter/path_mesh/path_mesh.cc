#include "exporter/path_mesh/path_mesh.h"

#include <cstring>

#include "common/log.h"
#include "common/thread_name.h"
#include "exporter/path_mesh/mesh_peers.h"

namespace fabric {
namespace {

std::vector<std::string> Names(const std::vector<MeshPeer>& peers) {
  std::vector<std::string> names;
  for (const auto& p : peers) names.push_back(p.name);
  return names;
}

class PathMeshCollector : public Collector {
 public:
  explicit PathMeshCollector(const PathStats& stats) : stats_(stats) {}
  Status Collect(MetricSink& sink) override {
    stats_.Collect(sink);
    return OkStatus();
  }

 private:
  const PathStats& stats_;
};

}  // namespace

PathMesh::PathMesh(std::vector<MeshPeer> peers, MeshSettings settings, MeshProber prober)
    : peers_(std::move(peers)),
      settings_(settings),
      prober_(std::move(prober)),
      stats_(Names(peers_)) {}

std::unique_ptr<PathMesh> PathMesh::ForFleet(const Fleet& fleet, const MeshSettings& settings,
                                             uint16_t responder_port) {
  std::vector<MeshPeer> peers;
  for (const FleetNode& node : ChooseMeshPeers(fleet, settings.max_peers)) {
    peers.push_back({node.name, {node.address, responder_port}});
  }
  const std::string source = fleet.Self().address;
  const auto timeout =
      std::chrono::microseconds(static_cast<int64_t>(settings.timeout_seconds * 1e6));
  MeshProber prober = [source, timeout](const std::vector<MeshPeer>& peers, const StopToken& stop) {
    std::vector<ConnectTarget> targets;
    for (const auto& p : peers) targets.push_back(p.target);
    return TimeConnects(targets, source, timeout, stop);
  };
  return std::make_unique<PathMesh>(std::move(peers), settings, std::move(prober));
}

PathMesh::~PathMesh() { Stop(); }

void PathMesh::RunRound(const StopToken& stop) {
  if (peers_.empty()) return;
  std::vector<ConnectResult> results = prober_(peers_, stop);
  for (size_t i = 0; i < peers_.size() && i < results.size(); ++i) {
    const ConnectResult& r = results[i];
    switch (r.kind) {
      case ConnectResult::Kind::kAnswered:
        stats_.Record(peers_[i].name, r.rtt_seconds);
        break;
      case ConnectResult::Kind::kLost:
        stats_.Record(peers_[i].name, std::nullopt);
        break;
      case ConnectResult::Kind::kLocalError:
        // This host's problem (its fabric address missing, out of sockets):
        // counting it as loss would blame the path.
        if (!warned_local_error_) {
          warned_local_error_ = true;
          log::Warn("latency mesh cannot send a probe (not counted)",
                    {{"target", peers_[i].name}, {"error", std::strerror(r.error)}});
        }
        break;
      case ConnectResult::Kind::kStopped:
        break;
    }
  }
}

void PathMesh::Start() {
  if (thread_.joinable() || peers_.empty()) return;
  thread_ = std::thread([this] {
    NameThisThread("fabric-mesh");
    const StopToken stop = stop_.token();
    const auto interval = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(settings_.interval_seconds));
    // Rounds on a fixed cadence from the start, not interval after the last
    // round's end, so the probe rate is the configured one.
    auto next = std::chrono::steady_clock::now();
    while (!stop.stop_requested()) {
      RunRound(stop);
      next += interval;
      const auto now = std::chrono::steady_clock::now();
      if (next < now) next = now;  // a round overran (cannot with timeout < interval)
      if (!stop.SleepFor(next - now)) break;
    }
  });
}

void PathMesh::Stop() {
  stop_.RequestStop();
  if (thread_.joinable()) thread_.join();
}

std::unique_ptr<Collector> PathMesh::MakeCollector() const {
  return std::make_unique<PathMeshCollector>(stats_);
}

}  // namespace fabric
