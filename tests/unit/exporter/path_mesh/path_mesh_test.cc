#include "exporter/path_mesh/path_mesh.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "exporter/path_mesh/connect_rtt.h"
#include "exporter/path_mesh/mesh_settings.h"

namespace fabric {
namespace {

using Kind = ConnectResult::Kind;

ConnectResult Answer(double rtt) { return {Kind::kAnswered, rtt, false, 0}; }
ConnectResult Lost() { return {Kind::kLost, 0, false, 0}; }

TEST(PathMeshTest, RoundRecordsAnswersAndLossesPerPeer) {
  std::vector<MeshPeer> peers = {{"node-b", {"198.18.0.2", 9878}},
                                 {"node-c", {"198.18.0.3", 9878}},
                                 {"node-d", {"198.18.0.4", 9878}}};
  // Scripted rounds: node-c loses every other probe, node-d is this host's
  // own failure (not the path's) and then a shutdown.
  int round = 0;
  std::vector<std::vector<MeshPeer>> asked;
  MeshProber prober = [&](const std::vector<MeshPeer>& p, const StopToken&) {
    asked.push_back(p);
    ++round;
    return std::vector<ConnectResult>{
        Answer(40e-6), round % 2 ? Lost() : Answer(3e-3),
        round % 2 ? ConnectResult{Kind::kLocalError, 0, false, EADDRNOTAVAIL}
                  : ConnectResult{Kind::kStopped, 0, false, 0}};
  };
  PathMesh mesh(peers, MeshSettings{}, prober);
  for (int i = 0; i < 4; ++i) mesh.RunRound(StopToken());
  ASSERT_EQ(asked.size(), 4u);
  EXPECT_EQ(asked[0].size(), 3u);
  PathCounts b = mesh.stats().Counts("node-b");
  EXPECT_EQ(b.probes, 4u);
  EXPECT_EQ(b.lost, 0u);
  EXPECT_EQ(b.buckets[3], 4u);  // (25us, 50us]
  PathCounts c = mesh.stats().Counts("node-c");
  EXPECT_EQ(c.probes, 4u);
  EXPECT_EQ(c.lost, 2u);
  EXPECT_EQ(c.buckets[9], 2u);  // (2.5ms, 5ms]
  PathCounts d = mesh.stats().Counts("node-d");
  EXPECT_EQ(d.probes, 0u);
  EXPECT_EQ(d.lost, 0u);
}

TEST(PathMeshTest, ForFleetTargetsTheChosenPeersAtTheResponderPort) {
  Fleet fleet;
  fleet.self = "a";
  fleet.nodes = {
      {"a", "198.18.0.1", "", 0}, {"b", "198.18.0.2", "", 0}, {"c", "198.18.0.3", "", 0}};
  MeshSettings settings;
  settings.max_peers = 1;
  auto mesh = PathMesh::ForFleet(fleet, settings, 9999);
  ASSERT_EQ(mesh->peers().size(), 1u);
  EXPECT_NE(mesh->peers()[0].name, "a");
  EXPECT_EQ(mesh->peers()[0].target.port, 9999);
}

// A listener on loopback: a connect to it is answered (SYN-ACK), one to a
// closed port too (RST); neither is loss.
TEST(ConnectRttTest, ConnectedAndRefusedAreAnswers) {
  int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(listener, 16), 0);
  socklen_t len = sizeof(addr);
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  const uint16_t open_port = ntohs(addr.sin_port);
  // A port bound but not listening: connects to it are refused.
  int closed = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  addr.sin_port = 0;
  ASSERT_EQ(::bind(closed, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  len = sizeof(addr);
  ::getsockname(closed, reinterpret_cast<sockaddr*>(&addr), &len);
  const uint16_t closed_port = ntohs(addr.sin_port);

  auto results = TimeConnects(
      {{"127.0.0.1", open_port}, {"127.0.0.1", closed_port}, {"not-an-address", open_port}},
      "127.0.0.1", std::chrono::seconds(5), StopToken());
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].kind, Kind::kAnswered);
  EXPECT_FALSE(results[0].refused);
  EXPECT_GT(results[0].rtt_seconds, 0);
  EXPECT_LT(results[0].rtt_seconds, 5);
  EXPECT_EQ(results[1].kind, Kind::kAnswered);
  EXPECT_TRUE(results[1].refused);
  EXPECT_EQ(results[2].kind, Kind::kLocalError);
  ::close(closed);
  ::close(listener);
}

TEST(ConnectRttTest, SourceAddressNotOnThisHostIsALocalError) {
  auto results =
      TimeConnects({{"127.0.0.1", 9}}, "192.0.2.77", std::chrono::seconds(1), StopToken());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].kind, Kind::kLocalError);
  EXPECT_EQ(results[0].error, EADDRNOTAVAIL);
}

}  // namespace
}  // namespace fabric
