#include "exporter/scheduled_probes/fleet_agreement.h"

#include <algorithm>

namespace fabric {
namespace {

// A digest as a peer sent it, fit for a label value: this version's 16 hex digits, or up to 64
// (a later version may send more); anything else (a peer writing garbage, or a 64 KiB line)
// is named as such rather than copied into a label.
std::string DigestLabel(const std::string& digest) {
  const bool hex = std::all_of(digest.begin(), digest.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
  return hex && digest.size() <= 64 ? digest : "malformed";
}

class AgreementCollector : public Collector {
 public:
  explicit AgreementCollector(const FleetAgreement& agreement) : agreement_(agreement) {}

  Status Collect(MetricSink& sink) override {
    for (const auto& [peer, seen] : agreement_.Disagreeing()) {
      sink.Info("fabric_fleet_peer_digest_info",
                "A peer whose last probe session opened with another fleet digest than this "
                "node's (agreement=\"differs\": no probe runs between the two until their lists "
                "agree) or with none (agreement=\"unknown\": an older version, probed as "
                "before). Absent while every peer agrees.",
                {{"peer", peer},
                 {"peer_digest", seen.digest},
                 {"agreement", seen.digest.empty() ? "unknown" : "differs"}});
    }
    return OkStatus();
  }

 private:
  const FleetAgreement& agreement_;
};

}  // namespace

FleetAgreement::FleetAgreement(const Fleet& fleet) : digest_(fleet.digest) {
  for (const FleetNode& node : fleet.nodes) names_[CanonicalAddress(node.address)] = node.name;
}

void FleetAgreement::Observe(const std::string& address, const std::string& digest) {
  const std::string canonical = CanonicalAddress(address);
  auto name = names_.find(canonical);
  const std::string peer = name != names_.end() ? name->second : address;
  std::lock_guard<std::mutex> lock(state_->mu);
  if (digest == digest_) {
    state_->peers.erase(peer);
  } else {
    state_->peers[peer] = Peer{DigestLabel(digest)};
  }
}

std::map<std::string, FleetAgreement::Peer> FleetAgreement::Disagreeing() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->peers;
}

std::unique_ptr<Collector> FleetAgreement::MakeCollector() const {
  return std::make_unique<AgreementCollector>(*this);
}

}  // namespace fabric
