// NIC roles from the configuration and from the routing tables in the
// kernel's /proc/net/route and /proc/net/ipv6_route formats: a route to a
// fleet peer makes its interface fabric, the default route's interface is
// management, and what the configuration names wins over both.
#include "exporter/collectors/nic_roles.h"

#include <gtest/gtest.h>

#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

// The kernel's header line and field layout (little-endian hex addresses).
constexpr char kRouteHeader[] =
    "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n";
// Default via 192.0.2.1 on eth0; 198.18.0.0/24 on ens1f0np0; 198.18.1.0/24 on
// ens1f1np1 (a second rail); 10.20.0.0/16 on ens2f0.
constexpr char kRoutes[] =
    "eth0\t00000000\t010200C0\t0003\t0\t0\t100\t00000000\t0\t0\t0\n"
    "ens1f0np0\t000012C6\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
    "ens1f1np1\t000112C6\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
    "ens2f0\t0000140A\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0\n";
// fd00:1::/64 on ens3f0np0.
constexpr char kIpv6Routes[] =
    "fd000001000000000000000000000000 40 00000000000000000000000000000000 00 "
    "00000000000000000000000000000000 00000100 00000001 00000000 00000001 ens3f0np0\n";

Fleet ThreeRails() {
  Fleet fleet;
  fleet.self = "node-a";
  fleet.nodes = {{"node-a", "198.18.0.1", "ens1f0np0"},
                 {"node-b", "198.18.1.2", ""},
                 {"node-c", "fd00:1::3", ""},
                 {"node-d", "198.18.0.4", ""}};
  return fleet;
}

class NicRolesTest : public ::testing::Test {
 protected:
  NicRolesTest() : root_((dir_.path() / "proc").string(), (dir_.path() / "sys").string()) {}

  fabric::testing::TestDir dir_;
  SysRoot root_;
};

TEST_F(NicRolesTest, RoutesToPeersAreFabricAndTheDefaultRouteIsManagement) {
  dir_.Write("proc/net/route", std::string(kRouteHeader) + kRoutes);
  dir_.Write("proc/net/ipv6_route", kIpv6Routes);
  const Fleet fleet = ThreeRails();
  NicRoles from_config;
  auto roles = ResolveNicRoles(root_, &fleet, {}, from_config);
  ASSERT_TRUE(roles.ok()) << roles.error().message;
  // The fleet config's own interface, then the routes to node-b (IPv4) and
  // node-c (IPv6); node-d's route leaves by the configured interface.
  EXPECT_EQ(roles->RoleOf("ens1f0np0"), kRoleFabric);
  EXPECT_EQ(roles->SourceOf("ens1f0np0"), "config");
  EXPECT_EQ(roles->RoleOf("ens1f1np1"), kRoleFabric);
  EXPECT_EQ(roles->SourceOf("ens1f1np1"), "route");
  EXPECT_EQ(roles->RoleOf("ens3f0np0"), kRoleFabric);
  EXPECT_EQ(roles->SourceOf("ens3f0np0"), "route");
  EXPECT_EQ(roles->RoleOf("eth0"), kRoleManagement);
  EXPECT_EQ(roles->SourceOf("eth0"), "route");
  // A route to no fleet peer says nothing: other, no source.
  EXPECT_EQ(roles->RoleOf("ens2f0"), kRoleOther);
  EXPECT_EQ(roles->SourceOf("ens2f0"), "");
  EXPECT_EQ(from_config.by_interface.size(), 1u);
}

TEST_F(NicRolesTest, TheConfigurationWinsOverTheRoutes) {
  dir_.Write("proc/net/route", std::string(kRouteHeader) + kRoutes);
  const Fleet fleet = ThreeRails();
  NicRoleSettings settings;
  settings.storage_interfaces = {"ens2f0"};
  // Named management although a peer's route leaves by it.
  settings.management_interfaces = {"ens1f1np1"};
  NicRoles from_config;
  auto roles = ResolveNicRoles(root_, &fleet, settings, from_config);
  ASSERT_TRUE(roles.ok()) << roles.error().message;
  EXPECT_EQ(roles->RoleOf("ens2f0"), kRoleStorage);
  EXPECT_EQ(roles->SourceOf("ens2f0"), "config");
  EXPECT_EQ(roles->RoleOf("ens1f1np1"), kRoleManagement);
  EXPECT_EQ(roles->SourceOf("ens1f1np1"), "config");
  EXPECT_EQ(roles->RoleOf("eth0"), kRoleManagement);
}

TEST_F(NicRolesTest, NoRoutingTablesLeaveTheConfiguredRolesOnly) {
  const Fleet fleet = ThreeRails();
  NicRoles from_config;
  auto roles = ResolveNicRoles(root_, &fleet, {}, from_config);
  ASSERT_TRUE(roles.ok()) << roles.error().message;
  EXPECT_EQ(roles->by_interface.size(), 1u);
  EXPECT_EQ(roles->RoleOf("ens1f0np0"), kRoleFabric);
  EXPECT_EQ(roles->RoleOf("eth0"), kRoleOther);
}

TEST_F(NicRolesTest, AMalformedTableIsAnErrorAndTheConfigurationStillLabels) {
  dir_.Write("proc/net/route", std::string(kRouteHeader) + "eth0\tnot-hex\n");
  const Fleet fleet = ThreeRails();
  NicRoleSettings settings;
  settings.storage_interfaces = {"ens2f0"};
  NicRoles from_config;
  auto roles = ResolveNicRoles(root_, &fleet, settings, from_config);
  EXPECT_FALSE(roles.ok());
  EXPECT_EQ(from_config.RoleOf("ens1f0np0"), kRoleFabric);
  EXPECT_EQ(from_config.RoleOf("ens2f0"), kRoleStorage);
}

TEST_F(NicRolesTest, WithoutAFleetOnlyTheDefaultRouteAndTheSettingsCount) {
  dir_.Write("proc/net/route", std::string(kRouteHeader) + kRoutes);
  NicRoles from_config;
  auto roles = ResolveNicRoles(root_, nullptr, {}, from_config);
  ASSERT_TRUE(roles.ok()) << roles.error().message;
  EXPECT_EQ(roles->RoleOf("eth0"), kRoleManagement);
  EXPECT_EQ(roles->RoleOf("ens1f0np0"), kRoleOther);
  EXPECT_EQ(roles->RoleOf("ens1f1np1"), kRoleOther);
}

}  // namespace
}  // namespace fabric
