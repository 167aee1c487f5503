// FleetAgreement: which peers plan with another fleet list than this node.
// Every probe session opens with the two sides' fleet digests (the HELLO and
// the responder's answer); a session between different digests is refused on
// both sides, and this table remembers the peer and its digest, so the
// disagreement is published (and alerted on) instead of two plans silently
// running side by side. A peer that sends no digest is an older version: it
// is probed as before and listed as such.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "exporter/config/fleet.h"
#include "exporter/metrics/collector.h"

namespace fabric {

class FleetAgreement {
 public:
  explicit FleetAgreement(const Fleet& fleet);

  // One session opening with the node at `address` (a numeric address, either
  // side of the session): its digest, "" when it sent none. The latest
  // exchange with a peer decides: an agreeing one clears it.
  void Observe(const std::string& address, const std::string& digest);

  // Publishes fabric_fleet_peer_digest_info for every peer that does not
  // agree; nothing while the whole fleet agrees. Shares the table.
  std::unique_ptr<Collector> MakeCollector() const;

  struct Peer {
    std::string digest;  // "" from a peer that sends none.
  };
  // Peer name (its address when the fleet list does not name it) -> digest.
  std::map<std::string, Peer> Disagreeing() const;

 private:
  struct State {
    std::mutex mu;
    std::map<std::string, Peer> peers;
  };
  std::string digest_;
  std::map<std::string, std::string> names_;  // Canonical address -> node name.
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

}  // namespace fabric
