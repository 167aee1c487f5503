// Receive wake-up batching: when the low-water mark goes on and off, that it
// never changes the receive buffer or window the kernel chose, that a marked
// socket still hands over a short read, and that the data path counts every
// byte of a stream with the mark in play. Real TCP sockets on loopback.
#include "active-probes/tcp/receive_batching.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include "active-probes/tcp/stream_io.h"
#include "common/unique_fd.h"
#include "tests/unit/active-probes/tcp/tcp_pair.h"

namespace fabric::probe {
namespace {

constexpr size_t kBlock = 128 * 1024;

int IntOption(int fd, int level, int name) {
  int v = -1;
  socklen_t len = sizeof(v);
  EXPECT_EQ(getsockopt(fd, level, name, &v, &len), 0);
  return v;
}

std::chrono::microseconds ReceiveTimeout(int fd) {
  timeval tv{};
  socklen_t len = sizeof(tv);
  EXPECT_EQ(getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, &len), 0);
  return std::chrono::seconds(tv.tv_sec) + std::chrono::microseconds(tv.tv_usec);
}

// The time the batching is given: the tests move it, so that no outcome
// depends on how long the machine takes to run them.
struct TestTime {
  std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now();
};

// Ends the batching's current interval: kSample later, one more read.
void EndInterval(ReceiveBatching& b, TestTime& t, size_t read_bytes) {
  t.now += ReceiveBatching::kSample;
  b.Count(read_bytes, t.now);
}

TEST(ReceiveBatchingTest, MarkIsTheBlockAtMostAQuarterOfTheBuffer) {
  EXPECT_EQ(ReceiveBatching::LowWaterMark(kBlock, 6 << 20), static_cast<int>(kBlock));
  EXPECT_EQ(ReceiveBatching::LowWaterMark(kBlock, 131072), 32768);
  EXPECT_EQ(ReceiveBatching::LowWaterMark(1 << 20, 2 << 20), 512 * 1024);
  EXPECT_EQ(ReceiveBatching::LowWaterMark(kBlock, 3), 1);
  EXPECT_EQ(ReceiveBatching::LowWaterMark(kBlock, 0), 1);
  EXPECT_EQ(ReceiveBatching::LowWaterMark(kBlock, -1), 1);
}

TEST(ReceiveBatchingTest, ShortMeansFewerThanHalfTheReadsFilledTheBlock) {
  EXPECT_TRUE(ReceiveBatching::ReadsComeBackShort(100, 49));
  EXPECT_FALSE(ReceiveBatching::ReadsComeBackShort(100, 50));
  EXPECT_FALSE(ReceiveBatching::ReadsComeBackShort(100, 100));
  EXPECT_TRUE(ReceiveBatching::ReadsComeBackShort(1, 0));
  EXPECT_FALSE(ReceiveBatching::ReadsComeBackShort(0, 0));
}

TEST(ReceiveBatchingTest, ShortReadsSetTheMarkWithItsTimeoutAndLeaveBufferAndWindowAlone) {
  auto [reader, writer] = testing::TcpPair();
  const int fd = reader.get();
  const int rcvbuf_before = IntOption(fd, SOL_SOCKET, SO_RCVBUF);
  const int clamp_before = IntOption(fd, IPPROTO_TCP, TCP_WINDOW_CLAMP);

  TestTime t;
  ReceiveBatching b(fd, kBlock, t.now);
  EXPECT_EQ(b.mark(), 1);
  EXPECT_EQ(ReceiveTimeout(fd).count(), 0);  // a plain blocking socket until it decides
  b.Count(1000, t.now);
  EndInterval(b, t, 1000);  // two reads, neither a full block: batching pays

  EXPECT_EQ(b.mark(), ReceiveBatching::LowWaterMark(kBlock, rcvbuf_before));
  EXPECT_GT(b.mark(), 1);
  EXPECT_EQ(IntOption(fd, SOL_SOCKET, SO_RCVLOWAT), b.mark());
  // The kernel keeps the timeout in scheduler ticks and reports it rounded up.
  EXPECT_GE(ReceiveTimeout(fd), ReceiveBatching::kMaxHold);
  EXPECT_LE(ReceiveTimeout(fd), std::chrono::milliseconds(10));
  // A mark that does not fit the buffer would have grown it and set the
  // window clamp to the mark (tcp_set_rcvlowat).
  EXPECT_EQ(IntOption(fd, SOL_SOCKET, SO_RCVBUF), rcvbuf_before);
  EXPECT_EQ(IntOption(fd, IPPROTO_TCP, TCP_WINDOW_CLAMP), clamp_before);
}

TEST(ReceiveBatchingTest, FullReadsLeaveTheSocketAsTheKernelMadeIt) {
  auto [reader, writer] = testing::TcpPair();
  const int fd = reader.get();
  TestTime t;
  ReceiveBatching b(fd, kBlock, t.now);
  b.Count(kBlock, t.now);
  b.Count(kBlock, t.now);
  EndInterval(b, t, 1000);  // two of three reads filled the block: the reader is behind
  EXPECT_EQ(b.mark(), 1);
  EXPECT_EQ(IntOption(fd, SOL_SOCKET, SO_RCVLOWAT), 1);
  EXPECT_EQ(ReceiveTimeout(fd).count(), 0);
}

TEST(ReceiveBatchingTest, AMarkStandsUntilTheRecheckThenTheStreamSamplesWithoutIt) {
  auto [reader, writer] = testing::TcpPair();
  const int fd = reader.get();
  TestTime t;
  ReceiveBatching b(fd, kBlock, t.now);
  EndInterval(b, t, 1000);
  ASSERT_GT(b.mark(), 1);
  // Full reads while marked do not drop the mark: they are what it is for.
  EndInterval(b, t, kBlock);
  EXPECT_GT(b.mark(), 1);
  t.now += ReceiveBatching::kRecheck;
  b.Count(kBlock, t.now);  // the decision has stood for kRecheck: sample again, unmarked
  EXPECT_EQ(b.mark(), 1);
  EXPECT_EQ(IntOption(fd, SOL_SOCKET, SO_RCVLOWAT), 1);
  EXPECT_EQ(ReceiveTimeout(fd).count(), 0);
  EndInterval(b, t, kBlock);  // the sample's reads filled the block: stays unmarked
  EXPECT_EQ(b.mark(), 1);
}

// The latency bound: with the mark set and less than the mark queued, recv()
// hands over what is there instead of waiting for more that may never come.
TEST(ReceiveBatchingTest, AMarkedSocketStillReturnsAShortRead) {
  auto [reader, writer] = testing::TcpPair();
  const int fd = reader.get();
  TestTime t;
  ReceiveBatching b(fd, kBlock, t.now);
  EndInterval(b, t, 1000);
  ASSERT_GT(b.mark(), 1000);
  const std::vector<char> out(1000, 'x');
  ASSERT_EQ(send(writer.get(), out.data(), out.size(), MSG_NOSIGNAL), 1000);
  // Without the receive timeout the recv below would block for good; the
  // watchdog then shuts the socket down to end the test, and says so.
  std::atomic<bool> returned{false};
  std::atomic<bool> watchdog_fired{false};
  std::thread watchdog([&] {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!returned.load() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!returned.load()) {
      watchdog_fired.store(true);
      shutdown(fd, SHUT_RDWR);
    }
  });
  std::vector<char> in(kBlock);
  ssize_t n = -1;
  do {
    n = recv(fd, in.data(), in.size(), 0);  // EAGAIN: a timeout with nothing queued yet
  } while (n < 0 && errno == EAGAIN);
  returned.store(true);
  watchdog.join();
  EXPECT_FALSE(watchdog_fired.load()) << "recv() waited for the mark";
  EXPECT_EQ(n, 1000);
}

// The data path end to end: a stream whose reads come back short gets the
// mark, and the receiver still counts every byte the sender sent, the tail
// below the mark included (it arrives with the FIN).
TEST(ReceiveBatchingTest, AReceivingStreamCountsEveryByteSent) {
  auto [reader, writer] = testing::TcpPair();
  // 100,000-byte sends: no multiple of the mark, so the stream ends with a
  // part-mark tail.
  auto send_payload = Payload::Create(100000, SendMode::kCopy);
  ASSERT_TRUE(send_payload.ok()) << send_payload.error().message;
  auto recv_payload = Payload::Create(4096, SendMode::kCopy);
  ASSERT_TRUE(recv_payload.ok());
  StreamSet sender(*send_payload, SendMode::kCopy, 256ull << 20);
  StreamSet receiver(*recv_payload, SendMode::kCopy, 0);
  ASSERT_NO_FATAL_FAILURE(
      testing::StartOneStream(sender, std::move(writer), receiver, std::move(reader)));
  sender.Join(std::chrono::seconds(120));  // stops at the byte limit and sends FIN
  receiver.Join(std::chrono::seconds(120));
  const uint64_t sent = sender.Snapshot()[0].bytes;
  EXPECT_GE(sent, 256ull << 20);
  EXPECT_EQ(receiver.Snapshot()[0].bytes, sent);
  EXPECT_EQ(sender.FirstError(), "");
  EXPECT_EQ(receiver.FirstError(), "");
}

}  // namespace
}  // namespace fabric::probe
