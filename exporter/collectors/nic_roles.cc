#include "exporter/collectors/nic_roles.h"

#include "common/parse/proc_net_route_parse.h"
#include "common/read/file_reader.h"

namespace fabric {
namespace {

Status ReadRoutes(const SysRoot& root, const char* file,
                  Result<std::vector<ProcRoute>> (*parse)(std::string_view, std::string_view),
                  std::vector<ProcRoute>& out) {
  const std::string path = root.Proc(file);
  auto text = ReadTable(path);
  if (text.absent()) return OkStatus();  // No IPv6, or a tree without routes.
  if (!text.ok()) return Unexpected{text.error()};
  auto routes = parse(*text, path);
  if (!routes.ok()) return Unexpected{routes.error()};
  out.insert(out.end(), routes->begin(), routes->end());
  return OkStatus();
}

void Assign(NicRoles& roles, const std::string& ifname, const char* role, const char* source) {
  if (ifname.empty() || roles.by_interface.count(ifname)) return;  // The first source wins.
  roles.by_interface[ifname] = role;
  roles.source[ifname] = source;
}

}  // namespace

const std::string& NicRoles::RoleOf(const std::string& ifname) const {
  static const std::string other = kRoleOther;
  auto it = by_interface.find(ifname);
  return it == by_interface.end() ? other : it->second;
}

std::string NicRoles::SourceOf(const std::string& ifname) const {
  auto it = source.find(ifname);
  return it == source.end() ? "" : it->second;
}

Result<NicRoles> ResolveNicRoles(const SysRoot& root, const Fleet* fleet,
                                 const NicRoleSettings& configured, NicRoles& from_config) {
  from_config = NicRoles{};
  if (fleet != nullptr) Assign(from_config, fleet->Self().interface, kRoleFabric, "config");
  for (const auto& n : configured.storage_interfaces) {
    Assign(from_config, n, kRoleStorage, "config");
  }
  for (const auto& n : configured.management_interfaces) {
    Assign(from_config, n, kRoleManagement, "config");
  }
  std::vector<ProcRoute> routes;
  FABRIC_RETURN_IF_ERROR(ReadRoutes(root, "net/route", &ParseProcNetRoute, routes));
  FABRIC_RETURN_IF_ERROR(ReadRoutes(root, "net/ipv6_route", &ParseProcNetIpv6Route, routes));
  NicRoles roles = from_config;
  if (fleet != nullptr) {
    for (const FleetNode& peer : fleet->nodes) {
      if (peer.name == fleet->self) continue;
      std::string ifname = RouteInterfaceFor(routes, peer.address);
      if (ifname != "lo") Assign(roles, ifname, kRoleFabric, "route");
    }
  }
  Assign(roles, DefaultRouteInterface(routes), kRoleManagement, "route");
  return roles;
}

}  // namespace fabric
