#include "exporter/collectors/rdma_resource_groups.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace fabric {
namespace {

struct Owner {
  std::string command;
  std::string pid;
};

Owner OwnerOf(const RdmaResourceOwner& owner, const RdmaResourceNaming& naming) {
  if (!owner.kernel_name.empty()) return {"[" + owner.kernel_name + "]", ""};
  if (!owner.pid) return {"unknown", ""};
  std::string command = naming.command_of ? naming.command_of(*owner.pid) : std::string();
  return {command.empty() ? "unknown" : command, std::to_string(*owner.pid)};
}

std::string PeerOf(const RdmaCmAddress& destination, const RdmaResourceNaming& naming) {
  std::string address = destination.address.ToString();
  auto node = naming.peers.find(address);
  return node != naming.peers.end() ? node->second : address;
}

using GroupMap = std::map<decltype(std::declval<RdmaResourceGroup>().Key()), RdmaResourceGroup>;

void Add(GroupMap& groups, RdmaResourceGroup group) {
  auto [it, inserted] = groups.try_emplace(group.Key(), group);
  if (!inserted) it->second.count += group.count;
}

// The `max_series` largest groups (ties: key order) as they are, the rest
// folded; returns how many folded.
size_t Bound(const GroupMap& groups, size_t max_series, std::vector<RdmaResourceGroup>& out) {
  std::vector<const RdmaResourceGroup*> order;
  for (const auto& [key, group] : groups) order.push_back(&group);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto* a, const auto* b) { return a->count > b->count; });
  GroupMap kept;
  size_t folded = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    RdmaResourceGroup group = *order[i];
    if (i >= max_series) {
      group.command = "other";
      group.pid.clear();
      group.peer = "other";
      ++folded;
    }
    Add(kept, std::move(group));
  }
  for (auto& [key, group] : kept) out.push_back(std::move(group));
  return folded;
}

}  // namespace

RdmaResourceReport GroupRdmaResources(const RdmaResources& resources,
                                      const RdmaResourceNaming& naming, size_t max_series) {
  // Each QP's rdma_cm id, by device and QP number.
  std::map<std::pair<std::string, uint32_t>, const RdmaCmIdRecord*> cm_of_qp;
  for (const RdmaCmIdRecord& id : resources.cm_ids) {
    if (id.lqpn) cm_of_qp[{id.device, *id.lqpn}] = &id;
  }
  GroupMap qps, cm_ids;
  for (const RdmaQpRecord& qp : resources.qps) {
    Owner owner = OwnerOf(qp.owner, naming);
    std::string peer = "unknown";
    if (auto id = cm_of_qp.find({qp.device, qp.lqpn});
        id != cm_of_qp.end() && id->second->destination) {
      peer = PeerOf(*id->second->destination, naming);
    }
    Add(qps, {qp.device, qp.port, owner.command, owner.pid, RdmaQpTypeName(qp.type),
              RdmaQpStateName(qp.state), peer, 1});
  }
  for (const RdmaCmIdRecord& id : resources.cm_ids) {
    Owner owner = OwnerOf(id.owner, naming);
    std::string peer = id.destination && !id.destination->address.IsUnspecified()
                           ? PeerOf(*id.destination, naming)
                           : "none";
    Add(cm_ids, {id.device, id.port, owner.command, owner.pid, RdmaPortSpaceName(id.port_space),
                 RdmaCmStateName(id.state), peer, 1});
  }
  RdmaResourceReport report;
  report.folded_qp_groups = Bound(qps, max_series, report.qps);
  report.folded_cm_id_groups = Bound(cm_ids, max_series, report.cm_ids);
  return report;
}

}  // namespace fabric
