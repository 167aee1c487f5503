// The unsent-data limit: the automatic per-stream value, that it reaches the
// kernel on real TCP sockets, that a StreamSet puts it on its sending streams
// only, and that the probe and the responder both use what the run asked for.
#include "active-probes/tcp/unsent_limit.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "active-probes/tcp/stream_io.h"
#include "common/unique_fd.h"
#include "tests/unit/active-probes/tcp/tcp_pair.h"

namespace fabric::probe {
namespace {

constexpr uint32_t k128K = 128u << 10;

TEST(UnsentLimitTest, AutoSharesTheBudgetAmongTheSendingStreams) {
  EXPECT_EQ(AutoUnsentLimit(1, k128K), 4u << 20);
  EXPECT_EQ(AutoUnsentLimit(8, k128K), 512u << 10);
  EXPECT_EQ(AutoUnsentLimit(32, k128K), 128u << 10);
  EXPECT_EQ(AutoUnsentLimit(3, k128K), (4u << 20) / 3);
  // Never below the floor, however many streams.
  EXPECT_EQ(AutoUnsentLimit(64, k128K), 64u << 10);
  EXPECT_EQ(AutoUnsentLimit(4096, k128K), 64u << 10);
  // A side with no sending streams: no division by zero, the whole budget.
  EXPECT_EQ(AutoUnsentLimit(0, k128K), 4u << 20);
}

// Writes smaller than a full packet are left to the kernel's default: a tight limit sends each
// of them as a packet of its own size.
TEST(UnsentLimitTest, NoAutomaticLimitForBlocksUnderAFullPacket) {
  EXPECT_EQ(AutoUnsentLimit(32, 16u << 10), 0u);
  EXPECT_EQ(AutoUnsentLimit(1, (64u << 10) - 1), 0u);
  EXPECT_EQ(AutoUnsentLimit(32, 64u << 10), 128u << 10);
  EXPECT_EQ(AutoUnsentLimit(32, 1u << 20), 128u << 10);
}

TEST(UnsentLimitTest, WhatARunMayAskFor) {
  EXPECT_TRUE(UnsentLimitAllowed(0));
  EXPECT_FALSE(UnsentLimitAllowed(1));
  EXPECT_FALSE(UnsentLimitAllowed((16u << 10) - 1));
  EXPECT_TRUE(UnsentLimitAllowed(16u << 10));
  EXPECT_TRUE(UnsentLimitAllowed(1u << 30));
  EXPECT_FALSE(UnsentLimitAllowed((1ull << 30) + 1));
  // The automatic limit is always one of them.
  for (uint32_t streams : {0u, 1u, 7u, 64u, 4096u, 1u << 20}) {
    for (uint32_t block : {1u << 10, 16u << 10, 64u << 10, 1u << 20}) {
      EXPECT_TRUE(UnsentLimitAllowed(AutoUnsentLimit(streams, block))) << streams << " " << block;
    }
  }
}

TEST(UnsentLimitTest, ReachesTheKernelAndZeroLeavesItsDefault) {
  auto [reader, writer] = testing::TcpPair();
  auto before = GetUnsentLimit(writer.get());
  ASSERT_TRUE(before.ok()) << before.error().message;
  EXPECT_EQ(*before, 0u);  // follows net.ipv4.tcp_notsent_lowat
  ASSERT_TRUE(SetUnsentLimit(writer.get(), 0).ok());
  EXPECT_EQ(*GetUnsentLimit(writer.get()), 0u);
  ASSERT_TRUE(SetUnsentLimit(writer.get(), 200000).ok());
  EXPECT_EQ(*GetUnsentLimit(writer.get()), 200000u);
}

TEST(UnsentLimitTest, ANonTcpSocketIsAnErrorThatSaysWhat) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  UniqueFd a(sv[0]), b(sv[1]);
  auto s = SetUnsentLimit(a.get(), 65536);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("TCP_NOTSENT_LOWAT"), std::string::npos) << s.error().message;
}

// StreamSet sets the limit on the streams it sends on and leaves the ones it
// receives on as the kernel made them.
TEST(UnsentLimitTest, AStreamSetLimitsItsSendingStreamsOnly) {
  auto [reader, writer] = testing::TcpPair();
  // Duplicates share the socket: they read back what the set's threads' sockets carry.
  UniqueFd reader_view(dup(reader.get())), writer_view(dup(writer.get()));
  ASSERT_TRUE(reader_view.valid() && writer_view.valid());
  auto payload = Payload::Create(64 * 1024, SendMode::kCopy);
  ASSERT_TRUE(payload.ok()) << payload.error().message;
  // One set per side, as the probe and the responder have: the limit is the sending set's.
  StreamSet sender(*payload, SendMode::kCopy, 8ull << 20, 0, 300000);
  StreamSet receiver(*payload, SendMode::kCopy, 0, 0, 300000);
  ASSERT_NO_FATAL_FAILURE(
      testing::StartOneStream(sender, std::move(writer), receiver, std::move(reader)));
  EXPECT_EQ(*GetUnsentLimit(writer_view.get()), 300000u);
  EXPECT_EQ(*GetUnsentLimit(reader_view.get()), 0u);
  EXPECT_EQ(sender.Snapshot()[0].unsent_limit, 300000u);  // what the window edges record
  sender.Join(std::chrono::seconds(60));                  // stops at its byte limit and sends FIN
  receiver.Join(std::chrono::seconds(60));
  EXPECT_EQ(receiver.Snapshot()[0].bytes, sender.Snapshot()[0].bytes);
  EXPECT_EQ(sender.FirstError(), "");
  EXPECT_EQ(receiver.FirstError(), "");
}

}  // namespace
}  // namespace fabric::probe
