// The library API end to end on loopback with real sockets: a Responder
// inside the test process, RunTcpProbe against it.
#include "active-probes/tcp/tcp_probe.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>

#include <atomic>
#include <future>
#include <thread>

#include "active-probes/responder/responder.h"

namespace fabric::probe {
namespace {

constexpr char kSecret[] = "loopback-test-secret-0123456789";

class LoopbackProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ResponderOptions o;
    o.listen = {HostPort{"127.0.0.1", 0}};
    o.allow = *ParseCidrList("127.0.0.0/8");
    o.secret = kSecret;
    o.max_streams = 4;
    o.max_duration = std::chrono::milliseconds(3000);
    o.idle_timeout = std::chrono::milliseconds(1000);
    o.procfs = "/proc";
    o.sysfs = "/sys";
    responder_ = std::make_unique<Responder>(o);
    ASSERT_TRUE(responder_->Start().ok());
  }

  TcpProbeOptions Options() {
    TcpProbeOptions o;
    o.peer = responder_->bound()[0];
    o.secret = kSecret;
    o.streams = 2;
    o.duration = std::chrono::milliseconds(400);
    o.warmup = std::chrono::milliseconds(100);
    o.procfs = "/proc";
    o.sysfs = "/sys";
    return o;
  }

  std::unique_ptr<Responder> responder_;
};

TEST_F(LoopbackProbeTest, SendCountsAtTheReceiver) {
  auto r = RunTcpProbe(Options());
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->directions.size(), 1u);
  const auto& d = r->directions[0];
  EXPECT_EQ(d.direction, "send");
  EXPECT_EQ(d.stream_bytes_per_second.size(), 2u);
  EXPECT_GT(d.bytes, 0u);
  EXPECT_NEAR(d.window_seconds, 0.4, 0.2);
  EXPECT_GT(d.per_stream.min, 0);
  EXPECT_LE(d.per_stream.min, d.per_stream.median);
  EXPECT_LE(d.per_stream.median, d.per_stream.max);
  EXPECT_GT(d.mss, 0u);
  EXPECT_EQ(r->iface, "lo");
  EXPECT_EQ(responder_->counters().sessions_completed, 1u);
}

TEST_F(LoopbackProbeTest, BothDirectionsAndModes) {
  auto o = Options();
  o.direction = Direction::kBoth;
  o.mode = SendMode::kCopy;
  auto r = RunTcpProbe(o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->directions.size(), 2u);
  EXPECT_GT(r->directions[0].bytes, 0u);
  EXPECT_GT(r->directions[1].bytes, 0u);
  EXPECT_EQ(r->bytes, r->directions[0].bytes + r->directions[1].bytes);

  o.direction = Direction::kSend;
  o.mode = SendMode::kZerocopy;
  o.streams = 1;
  auto z = RunTcpProbe(o);
  ASSERT_TRUE(z.ok()) << z.error().message;
  // Loopback always copies MSG_ZEROCOPY payload; the probe must say so.
  EXPECT_GT(z->directions[0].zerocopy_sends, 0u);
  EXPECT_EQ(z->directions[0].zerocopy_copied, z->directions[0].zerocopy_sends);
}

TEST_F(LoopbackProbeTest, WrongSecretIsAuthError) {
  auto o = Options();
  o.secret = "some-other-secret-0123456789";
  auto r = RunTcpProbe(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(ErrorKindOf(r.error()), ProbeErrorKind::kAuth) << r.error().message;
  // The responder counts once its session thread has finished.
  for (int i = 0; i < 100 && responder_->counters().auth_failures == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(responder_->counters().auth_failures, 1u);
}

TEST_F(LoopbackProbeTest, LimitsAreEnforcedByTheResponder) {
  auto o = Options();
  o.streams = 5;
  auto r = RunTcpProbe(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(ErrorKindOf(r.error()), ProbeErrorKind::kRejected) << r.error().message;
  o.streams = 1;
  o.duration = std::chrono::milliseconds(5000);
  r = RunTcpProbe(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(ErrorKindOf(r.error()), ProbeErrorKind::kRejected) << r.error().message;
}

TEST_F(LoopbackProbeTest, SecondSessionIsBusyThenRetrySucceeds) {
  auto o = Options();
  o.duration = std::chrono::milliseconds(1000);
  auto first = std::async(std::launch::async, [&] { return RunTcpProbe(o); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto second = RunTcpProbe(Options());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(ErrorKindOf(second.error()), ProbeErrorKind::kBusy) << second.error().message;
  ASSERT_TRUE(first.get().ok());
  auto third = RunTcpProbe(Options());
  EXPECT_TRUE(third.ok()) << third.error().message;
}

TEST(ResponderLimitsTest, ByteLimitCapsWhatTheResponderSends) {
  ResponderOptions ro;
  ro.listen = {HostPort{"127.0.0.1", 0}};
  ro.allow = *ParseCidrList("127.0.0.1/32");
  ro.secret = kSecret;
  ro.max_bytes = 8 << 20;
  Responder responder(ro);
  ASSERT_TRUE(responder.Start().ok());
  TcpProbeOptions o;
  o.peer = responder.bound()[0];
  o.secret = kSecret;
  o.streams = 2;
  o.direction = Direction::kReceive;
  o.duration = std::chrono::milliseconds(500);
  o.warmup = std::chrono::milliseconds(0);
  auto r = RunTcpProbe(o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_LE(r->bytes, 8u << 20);
}

TEST(ProbeErrorsTest, SilentPeerIsTimeout) {
  // A listener that never answers: the connection completes in the backlog,
  // HELLO gets no reply.
  auto listener = Listen(HostPort{"127.0.0.1", 0});
  ASSERT_TRUE(listener.ok()) << listener.error().message;
  sockaddr_storage local = LocalAddress(listener->get());
  TcpProbeOptions o;
  o.peer = HostPort{"127.0.0.1", ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port)};
  o.secret = kSecret;
  o.connect_timeout = std::chrono::milliseconds(300);
  auto r = RunTcpProbe(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(ErrorKindOf(r.error()), ProbeErrorKind::kTimeout) << r.error().message;
}

// Sets `stop` after `delay` (the exporter's shutdown) and times the run.
template <typename Run>
double SecondsUntilStopped(std::atomic<bool>& stop, std::chrono::milliseconds delay, Run run) {
  auto start = std::chrono::steady_clock::now();
  std::thread stopper([&] {
    std::this_thread::sleep_for(delay);
    stop = true;
  });
  run();
  stopper.join();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST_F(LoopbackProbeTest, StopEndsTheWindowAndFreesTheResponder) {
  // The responder's streams write into sockets the abandoned probe closed;
  // both binaries ignore SIGPIPE for that (exporter/app/main.cc, cli/*).
  signal(SIGPIPE, SIG_IGN);
  std::atomic<bool> stop{false};
  auto o = Options();
  o.duration = std::chrono::milliseconds(2500);
  o.direction = Direction::kBoth;
  o.stop = &stop;
  Result<TcpProbeResult> r = MakeError("not run");
  double took =
      SecondsUntilStopped(stop, std::chrono::milliseconds(400), [&] { r = RunTcpProbe(o); });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(ErrorKindOf(r.error()), ProbeErrorKind::kInterrupted) << r.error().message;
  EXPECT_LT(took, 1.0);
  // The abandoned session's sockets are closed: the responder takes the next.
  auto next = Options();
  next.busy_retries = 3;
  auto again = RunTcpProbe(next);
  EXPECT_TRUE(again.ok()) << again.error().message;
}

TEST(ProbeErrorsTest, StopDoesNotWaitOutASilentPeer) {
  auto listener = Listen(HostPort{"127.0.0.1", 0});
  ASSERT_TRUE(listener.ok()) << listener.error().message;
  sockaddr_storage local = LocalAddress(listener->get());
  std::atomic<bool> stop{false};
  TcpProbeOptions o;
  o.peer = HostPort{"127.0.0.1", ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port)};
  o.secret = kSecret;
  o.connect_timeout = std::chrono::milliseconds(5000);
  o.stop = &stop;
  Result<TcpProbeResult> r = MakeError("not run");
  double took =
      SecondsUntilStopped(stop, std::chrono::milliseconds(200), [&] { r = RunTcpProbe(o); });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(ErrorKindOf(r.error()), ProbeErrorKind::kInterrupted) << r.error().message;
  EXPECT_LT(took, 1.0);
}

TEST(ProbeErrorsTest, RefusedIsNamed) {
  TcpProbeOptions o;
  o.peer = HostPort{"127.0.0.1", 1};
  o.secret = kSecret;
  auto r = RunTcpProbe(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(ErrorKindOf(r.error()), ProbeErrorKind::kRefused) << r.error().message;
}

}  // namespace
}  // namespace fabric::probe
