// A connected TCP pair on 127.0.0.1 for tests that need a real TCP socket
// (socket options at IPPROTO_TCP, the kernel's TCP receive path), and one
// stream over it between two StreamSets, as between the probe and a responder.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <utility>
#include <vector>

#include "active-probes/tcp/stream_io.h"
#include "common/unique_fd.h"

namespace fabric::testing {

// {accepted (the reader), connecting}.
inline std::pair<UniqueFd, UniqueFd> TcpPair() {
  UniqueFd listener(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  EXPECT_TRUE(listener.valid());
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  EXPECT_EQ(listen(listener.get(), 1), 0);
  socklen_t len = sizeof(addr);
  EXPECT_EQ(getsockname(listener.get(), reinterpret_cast<sockaddr*>(&addr), &len), 0);
  UniqueFd client(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  EXPECT_EQ(connect(client.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  UniqueFd server(accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
  EXPECT_TRUE(server.valid());
  return {std::move(server), std::move(client)};
}

// Starts `receiver` reading `reader` and then `sender` writing `writer`, one stream each.
inline void StartOneStream(probe::StreamSet& sender, UniqueFd writer, probe::StreamSet& receiver,
                           UniqueFd reader) {
  std::vector<probe::StreamSpec> send_spec(1), recv_spec(1);
  send_spec[0].fd = std::move(writer);
  send_spec[0].send = true;
  recv_spec[0].fd = std::move(reader);
  ASSERT_TRUE(receiver.Start(std::move(recv_spec)).ok());
  ASSERT_TRUE(sender.Start(std::move(send_spec)).ok());
}

}  // namespace fabric::testing
