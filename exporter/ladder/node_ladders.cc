#include "exporter/ladder/node_ladders.h"

#include <algorithm>
#include <limits>
#include <map>

namespace fabric::ladder {

std::vector<Ladder> NodeLadders(const Fleet& fleet, bool loopback,
                                const std::vector<prometheus::MetricFamily>& families,
                                const std::vector<ProbeRecord>& records, double now_seconds,
                                const CounterHistory* history) {
  const FleetNode& self = fleet.Self();
  std::vector<std::string> peers;
  std::map<std::string, std::string> peer_names;
  if (loopback) {
    peers.push_back("loopback");
  } else {
    for (const auto& node : fleet.nodes) {
      if (node.name == self.name) continue;
      peers.push_back(node.name);
      peer_names[node.address] = node.name;
    }
  }
  std::vector<Ladder> ladders;
  // The passive facts depend on the fabric interface only, not on the peer: read the families
  // once per interface (with a configured one, once), not once per path.
  std::map<std::string, PassiveFacts> facts_by_interface;
  for (const auto& peer : peers) {
    // The configured fabric interface; without one, the interface the TCP probe's traffic
    // left through.
    std::string interface = self.interface;
    for (const auto& r : records) {
      if (!interface.empty()) break;
      auto it = r.info.find("interface");
      if (r.key.target == peer && it != r.info.end()) interface = it->second;
    }
    LadderInput input;
    input.node = self.name;
    input.peer = peer;
    input.loopback = loopback;
    auto [facts, first] = facts_by_interface.try_emplace(interface);
    if (first) facts->second = FactsFromFamilies(families, interface, peer_names, history);
    input.facts = facts->second;
    input.records = records;
    input.now_seconds = now_seconds;
    using probe::Rung;
    input.absent_reasons = {{Rung::kRdma, "not configured (probes.rdma)"},
                            {Rung::kTcpMulti, "not configured (probes.tcp)"},
                            {Rung::kTcpSingle, "not configured (probes.tcp.single_stream)"},
                            {Rung::kStorageRead, "not configured (probes.storage)"},
                            {Rung::kStorageWrite, "not configured (probes.storage)"}};
    if (loopback) input.transfers_absent_reason = "loopback: no real transfers to a peer";
    ladders.push_back(BuildLadder(input));
  }
  return ladders;
}

std::string KeepSlowestPaths(std::vector<Ladder>& ladders, size_t limit) {
  if (ladders.size() <= limit) return "";
  auto network = [](const Ladder& l) {
    return l.network_binding < 0 ? std::numeric_limits<double>::infinity()
                                 : *l.layers[l.network_binding].bytes_per_second;
  };
  std::stable_sort(ladders.begin(), ladders.end(),
                   [&](const Ladder& a, const Ladder& b) { return network(a) < network(b); });
  const size_t total = ladders.size();
  ladders.resize(limit);
  return "Showing the " + std::to_string(limit) + " slowest of " + std::to_string(total) +
         " paths (by the network's binding layer); the fleet dashboards show them all.";
}

}  // namespace fabric::ladder
