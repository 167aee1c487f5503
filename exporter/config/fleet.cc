#include "exporter/config/fleet.h"

#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <set>

namespace fabric {
namespace {

std::string HostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "";
  std::string name = buf;
  return name.substr(0, name.find('.'));
}

bool IsNumericAddress(const std::string& address) {
  in_addr v4;
  in6_addr v6;
  return inet_pton(AF_INET, address.c_str(), &v4) == 1 ||
         inet_pton(AF_INET6, address.c_str(), &v6) == 1;
}

}  // namespace

size_t Fleet::SelfIndex() const {
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].name == self) return i;
  }
  return 0;  // ParseFleet guarantees self is listed.
}

std::optional<Fleet> ParseFleet(const ConfigNode& section) {
  if (!section.present()) return std::nullopt;
  section.ExpectMapWithKeys({"self", "nodes"});
  Fleet fleet;
  fleet.self = section.String("self").value_or(HostName());
  std::set<std::string> names, addresses;
  for (const ConfigNode& node : section.Elements("nodes")) {
    node.ExpectMapWithKeys({"name", "address", "interface", "mtu", "rack", "plane", "role"});
    FleetNode n;
    auto name = node.String("name");
    auto address = node.String("address");
    if (!name || name->empty()) node.Fail("name", "every node needs a name");
    if (!address) node.Fail("address", "every node needs its fabric address");
    if (!IsNumericAddress(*address)) {
      node.Fail("address", "\"" + *address + "\" is not a numeric IPv4 or IPv6 address");
    }
    if (!names.insert(*name).second) node.Fail("name", "node \"" + *name + "\" is listed twice");
    if (!addresses.insert(*address).second) {
      node.Fail("address", "address " + *address + " is listed twice");
    }
    n.name = *name;
    n.address = *address;
    n.interface = node.String("interface").value_or("");
    n.mtu = static_cast<int>(node.Int("mtu", 576, 65535).value_or(0));
    // Topology keys become label values; an empty one would read as "not
    // configured" there, so it is refused rather than silently dropped.
    for (auto [key, field] :
         {std::pair{"rack", &n.rack}, std::pair{"plane", &n.plane}, std::pair{"role", &n.role}}) {
      auto value = node.String(key);
      if (value && value->empty()) node.Fail(key, "must not be empty (leave the key out instead)");
      *field = value.value_or("");
    }
    fleet.nodes.push_back(std::move(n));
  }
  if (fleet.nodes.empty()) section.Fail("nodes", "list at least this node");
  if (names.count(fleet.self) == 0) {
    section.Fail("self", "this node \"" + fleet.self +
                             "\" is not in fleet.nodes (set fleet.self to its name there)");
  }
  std::sort(fleet.nodes.begin(), fleet.nodes.end(),
            [](const FleetNode& a, const FleetNode& b) { return a.name < b.name; });
  return fleet;
}

}  // namespace fabric
