// The live netlink backend on this machine's kernel: a real loopback TCP
// connection must appear in the dump with its bytes counted. And the
// recording loader fixture trees replay instead.
#include "exporter/backends/flow_source.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "common/parse/flow_recording_parse.h"
#include "common/unique_fd.h"
#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

// A TCP listener on 127.0.0.1 at a port the kernel picks; `addr` gets its address.
void ListenOnLoopback(UniqueFd& listener, sockaddr_in& addr) {
  listener = UniqueFd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(listener.valid());
  addr = sockaddr_in{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(listener.get(), 1), 0);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&addr), &len), 0);
}

TEST(NetlinkFlowSourceTest, SeesALoopbackConnectionAndItsBytes) {
  UniqueFd listener;
  sockaddr_in addr{};
  ASSERT_NO_FATAL_FAILURE(ListenOnLoopback(listener, addr));
  UniqueFd client(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_EQ(::connect(client.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  UniqueFd server(::accept(listener.get(), nullptr, nullptr));
  ASSERT_TRUE(server.valid());
  std::string data(100000, 'x');
  ASSERT_EQ(::send(client.get(), data.data(), data.size(), 0), static_cast<ssize_t>(data.size()));
  size_t got = 0;
  char buf[65536];
  while (got < data.size()) {
    ssize_t n = ::recv(server.get(), buf, sizeof(buf), 0);
    ASSERT_GT(n, 0);
    got += static_cast<size_t>(n);
  }

  auto snapshot = MakeNetlinkFlowSource()->Snapshot();
  ASSERT_TRUE(snapshot.ok()) << snapshot.error().message;
  EXPECT_GT(snapshot->monotonic_seconds, 0);
  bool saw_loopback = false;
  for (const auto& a : snapshot->addresses) {
    saw_loopback = saw_loopback || (a.interface == "lo" && a.address.IsLoopback());
  }
  EXPECT_TRUE(saw_loopback);
  const uint16_t port = ntohs(addr.sin_port);
  const SocketRecord* sender = nullptr;
  const SocketRecord* receiver = nullptr;
  for (const auto& s : snapshot->sockets) {
    if (s.remote_port == port && s.local.IsLoopback()) sender = &s;
    if (s.local_port == port && s.remote.IsLoopback()) receiver = &s;
  }
  ASSERT_NE(sender, nullptr);
  ASSERT_NE(receiver, nullptr);
  EXPECT_NE(sender->cookie, receiver->cookie);
  ASSERT_TRUE(sender->info && sender->info->bytes_acked && receiver->info->bytes_received);
  // The kernel's bytes_acked counts the SYN's sequence number too.
  EXPECT_EQ(*sender->info->bytes_acked, data.size() + 1);
  EXPECT_EQ(*receiver->info->bytes_received, data.size());
  EXPECT_TRUE(sender->sndbuf.has_value());
  EXPECT_TRUE(sender->info->busy_us.has_value());  // This kernel is newer than 4.10.
}

// A connection that opens, moves its bytes and closes between two snapshots is still seen:
// the kernel's destroy message (sock_diag's SKNLGRP_INET_TCP_DESTROY) carries its last
// TCP_INFO. Subscribing needs CAP_NET_ADMIN: without it the source says so and goes on.
TEST(NetlinkFlowSourceTest, AConnectionClosedBetweenSnapshotsComesWithItsLastBytes) {
  if (::geteuid() != 0) GTEST_SKIP() << "the destroy group needs CAP_NET_ADMIN (root)";
  auto source = MakeNetlinkFlowSource();  // Subscribed from here on.
  ASSERT_TRUE(source->Snapshot().ok());
  UniqueFd listener;
  sockaddr_in addr{};
  ASSERT_NO_FATAL_FAILURE(ListenOnLoopback(listener, addr));
  const std::string data(300000, 'x');
  {
    UniqueFd client(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    ASSERT_EQ(::connect(client.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    UniqueFd server(::accept(listener.get(), nullptr, nullptr));
    ASSERT_TRUE(server.valid());
    size_t sent = 0;
    while (sent < data.size()) {
      ssize_t n = ::send(client.get(), data.data() + sent, data.size() - sent, 0);
      ASSERT_GT(n, 0);
      sent += static_cast<size_t>(n);
      char buf[65536];
      while (::recv(server.get(), buf, sizeof(buf), MSG_DONTWAIT) > 0) {
      }
    }
    char buf[65536];
    ::shutdown(client.get(), SHUT_WR);
    while (::recv(server.get(), buf, sizeof(buf), 0) > 0) {  // Up to the client's FIN.
    }
  }  // Both ends closed: destroyed (the client's end after its FIN is acked).
  const uint16_t port = ntohs(addr.sin_port);
  // The destroy message is sent from a work queue: give it a moment, a few snapshots.
  const SocketRecord* receiver = nullptr;
  std::vector<SocketRecord> closed;
  for (int i = 0; i < 50 && receiver == nullptr; ++i) {
    auto snapshot = source->Snapshot();
    ASSERT_TRUE(snapshot.ok()) << snapshot.error().message;
    closed.insert(closed.end(), snapshot->closed.begin(), snapshot->closed.end());
    for (const auto& s : closed) {
      if (s.local_port == port && s.remote.IsLoopback()) receiver = &s;
    }
    if (receiver == nullptr) ::usleep(20000);
  }
  ASSERT_NE(receiver, nullptr) << closed.size() << " destroyed sockets, none the server's";
  ASSERT_TRUE(receiver->info && receiver->info->bytes_received);
  // Its last count: every byte, and the client's FIN's sequence number.
  EXPECT_EQ(*receiver->info->bytes_received, data.size() + 1);
}

// Rates are deltas between the last two snapshots, so a recording of one
// snapshot, which parses, cannot be replayed: LoadFlowRecording refuses it.
TEST(FlowRecordingTest, NeedsTwoSnapshots) {
  const std::string one =
      "snapshot 10\n"
      "address eth0 192.0.2.10\n"
      "socket 192.0.2.10:40001 192.0.2.20:22 cookie=9 bytes_acked=100\n";
  const std::string two = one +
                          "snapshot 11\n"
                          "address eth0 192.0.2.10\n"
                          "socket 192.0.2.10:40001 192.0.2.20:22 cookie=9 bytes_acked=5000100\n";
  ASSERT_TRUE(ParseFlowRecording(one, "one").ok());  // The text itself is fine.
  testing::TestDir dir;
  auto single = LoadFlowRecording(dir.Write("one.rec", one));
  EXPECT_FALSE(single.ok());
  auto pair = LoadFlowRecording(dir.Write("two.rec", two));
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  ASSERT_EQ(pair->size(), 2u);
  EXPECT_DOUBLE_EQ((*pair)[1].monotonic_seconds, 11);
  EXPECT_FALSE(LoadFlowRecording((dir.path() / "missing.rec").string()).ok());
}

}  // namespace
}  // namespace fabric
