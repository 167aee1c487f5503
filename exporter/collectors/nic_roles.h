// What each network interface is for: `fabric` (carries the fleet's probe
// and transfer traffic), `storage`, `management`, or `other`, the `role`
// label of the netdev collector's interface series, so rules and dashboards
// select the fabric NICs without naming them. This is a per-interface role,
// not the node's role in the fleet. From the configuration first (the fleet
// config's `interface` of this node is fabric; the netdev collector's
// `storage_interfaces` and `management_interfaces` are what they say), then
// from the routing tables
// in procfs (/proc/net/route, /proc/net/ipv6_route): an interface a route to
// a fleet peer leaves by is fabric, the default route's is management.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/read/sysroot.h"
#include "common/result.h"
#include "exporter/config/fleet.h"

namespace fabric {

inline constexpr const char* kRoleFabric = "fabric";
inline constexpr const char* kRoleStorage = "storage";
inline constexpr const char* kRoleManagement = "management";
inline constexpr const char* kRoleOther = "other";

struct NicRoles {
  std::map<std::string, std::string> by_interface;  // Interfaces with a known role.
  std::map<std::string, std::string> source;        // "config" or "route", by interface.
  const std::string& RoleOf(const std::string& ifname) const;
  std::string SourceOf(const std::string& ifname) const;
};

// The netdev collector's settings that name interfaces by role.
struct NicRoleSettings {
  std::vector<std::string> storage_interfaces;
  std::vector<std::string> management_interfaces;
};

// `fleet` may be null. Missing routing tables are no routes; an unreadable or
// malformed one is an error, and `from_config` (filled first) still labels
// what the configuration names.
Result<NicRoles> ResolveNicRoles(const SysRoot& root, const Fleet* fleet,
                                 const NicRoleSettings& configured, NicRoles& from_config);

}  // namespace fabric
