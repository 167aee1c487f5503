// The library API end to end on loopback with real sockets: a Responder
// inside the test process, RunTcpProbe against it.
#include "active-probes/tcp/tcp_probe.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>

#include <future>
#include <thread>

#include "active-probes/control/client_session.h"
#include "active-probes/responder/responder.h"
#include "active-probes/tcp/unsent_limit.h"
#include "tests/unit/active-probes/probe/probe_test_context.h"
#include "tests/unit/active-probes/responder/loopback_responder_options.h"

namespace fabric::probe {
namespace {

constexpr char kSecret[] = "loopback-test-secret-0123456789";

class LoopbackProbeTest : public ::testing::Test {
 protected:
  void SetUp() override { StartResponder(); }

  // The idle timeout is far above any pause a loaded 2-core CI host makes
  // between two control messages; no test here waits on it.
  void StartResponder(std::chrono::milliseconds idle_timeout = std::chrono::milliseconds(10000)) {
    responder_ = std::make_unique<Responder>(LoopbackResponderOptions(kSecret, 4, idle_timeout));
    ASSERT_TRUE(responder_->Start().ok());
  }

  TcpProbeOptions Options() {
    TcpProbeOptions o;
    o.peer = responder_->bound()[0];
    o.secret = kSecret;
    o.streams = 2;
    o.duration = std::chrono::milliseconds(400);
    o.warmup = std::chrono::milliseconds(100);
    return o;
  }
  ProbeContext Ctx() { return test_.context(); }

  testing::TestContext test_;
  std::unique_ptr<Responder> responder_;
};

TEST_F(LoopbackProbeTest, SendCountsAtTheReceiver) {
  auto o = Options();
  o.duration = std::chrono::milliseconds(1000);  // every stream gets scheduled on a loaded host
  auto r = RunTcpProbe(o, Ctx());
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->directions.size(), 1u);
  const auto& d = r->directions[0];
  EXPECT_EQ(d.direction, Direction::kSend);
  EXPECT_EQ(d.stream_bytes_per_second.size(), 2u);
  EXPECT_GT(d.bytes, 0u);
  // The receiver's window: its own marks, so not exactly the asked second,
  // but never a fraction of it nor the warm-up added several times.
  EXPECT_GT(d.window_seconds, 0.25);
  EXPECT_LT(d.window_seconds, 6.0);
  EXPECT_NEAR(d.bytes_per_second, static_cast<double>(d.bytes) / d.window_seconds,
              1e-6 * d.bytes_per_second);
  EXPECT_GT(d.per_stream.min, 0);
  EXPECT_LE(d.per_stream.min, d.per_stream.median);
  EXPECT_LE(d.per_stream.median, d.per_stream.max);
  EXPECT_GT(d.mss, 0u);
  EXPECT_EQ(r->iface, "lo");
  EXPECT_EQ(responder_->counters().sessions_completed, 1u);
}

TEST(ProbeTrafficTest, BothEndsCountTheBytesTheirStreamsMoved) {
  // What probing costs a node: the requester's streams through the context, the responder's
  // with the session's time; each at least the window's bytes the receiver counted.
  std::promise<std::pair<double, uint64_t>> ended;
  ResponderOptions options = LoopbackResponderOptions(kSecret, 4, std::chrono::seconds(10));
  options.on_session_end = [&ended](double seconds, uint64_t bytes) {
    ended.set_value({seconds, bytes});
  };
  Responder responder(std::move(options));
  ASSERT_TRUE(responder.Start().ok());
  testing::TestContext test;
  std::atomic<uint64_t> moved{0};
  ProbeContext context = test.context();
  context.moved_bytes = &moved;
  TcpProbeOptions o;
  o.peer = responder.bound()[0];
  o.secret = kSecret;
  o.streams = 2;
  o.duration = std::chrono::milliseconds(400);
  o.warmup = std::chrono::milliseconds(100);
  auto r = RunTcpProbe(o, context);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const uint64_t window_bytes = r->directions.at(0).bytes;
  ASSERT_GT(window_bytes, 0u);
  auto served = ended.get_future();
  ASSERT_EQ(served.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  const auto [seconds, responder_bytes] = served.get();
  EXPECT_GT(seconds, 0);
  EXPECT_GE(moved.load(), window_bytes);
  EXPECT_GE(responder_bytes, window_bytes);
}

TEST_F(LoopbackProbeTest, BothDirectionsAndModes) {
  auto o = Options();
  o.direction = Direction::kBoth;
  o.mode = SendMode::kCopy;
  auto r = RunTcpProbe(o, Ctx());
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->directions.size(), 2u);
  EXPECT_GT(r->directions[0].bytes, 0u);
  EXPECT_GT(r->directions[1].bytes, 0u);
  EXPECT_EQ(r->bytes, r->directions[0].bytes + r->directions[1].bytes);

  o.direction = Direction::kSend;
  o.mode = SendMode::kZerocopy;
  o.streams = 1;
  auto z = RunTcpProbe(o, Ctx());
  ASSERT_TRUE(z.ok()) << z.error().message;
  // Loopback always copies MSG_ZEROCOPY payload; the probe must say so.
  EXPECT_GT(z->directions[0].zerocopy_sends, 0u);
  EXPECT_EQ(z->directions[0].zerocopy_copied, z->directions[0].zerocopy_sends);
}

// Each side sets the run's unsent limit on the streams it sends on, and the result says what
// the senders' sockets had: the probe reads its own, the responder reports its own.
TEST_F(LoopbackProbeTest, BothSidesSetTheUnsentLimitAndReportIt) {
  auto o = Options();
  o.direction = Direction::kBoth;
  auto automatic = RunTcpProbe(o, Ctx());
  ASSERT_TRUE(automatic.ok()) << automatic.error().message;
  ASSERT_EQ(automatic->directions.size(), 2u);
  ASSERT_GT(AutoUnsentLimit(2, o.block), 0u);
  for (const auto& d : automatic->directions)
    EXPECT_EQ(d.unsent_limit, AutoUnsentLimit(2, o.block));

  o.block = 16 * 1024;  // under a full packet: automatic is the kernel's default on both sides
  auto small = RunTcpProbe(o, Ctx());
  ASSERT_TRUE(small.ok()) << small.error().message;
  ASSERT_EQ(small->directions.size(), 2u);
  for (const auto& d : small->directions) EXPECT_EQ(d.unsent_limit, 0);
  o.block = Options().block;

  o.unsent_limit = 100000;
  auto set = RunTcpProbe(o, Ctx());
  ASSERT_TRUE(set.ok()) << set.error().message;
  for (const auto& d : set->directions) EXPECT_EQ(d.unsent_limit, 100000);

  o.unsent_limit = 0;  // the kernel's default: the sockets carry no limit of their own
  o.direction = Direction::kReceive;
  auto kernel = RunTcpProbe(o, Ctx());
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  ASSERT_EQ(kernel->directions.size(), 1u);
  EXPECT_EQ(kernel->directions[0].unsent_limit, 0);
}

TEST_F(LoopbackProbeTest, ReceivesInTheSendBlockUnlessARunNamesItsOwn) {
  auto o = Options();
  o.mode = SendMode::kCopy;
  o.block = 1024 * 1024;
  auto automatic = RunTcpProbe(o, Ctx());
  ASSERT_TRUE(automatic.ok()) << automatic.error().message;
  EXPECT_EQ(automatic->recv_block, 1024u * 1024);
  EXPECT_GT(automatic->directions[0].bytes, 0u);
  o.recv_block = 64 * 1024;
  auto named = RunTcpProbe(o, Ctx());
  ASSERT_TRUE(named.ok()) << named.error().message;
  EXPECT_EQ(named->recv_block, 64u * 1024);
}

TEST_F(LoopbackProbeTest, WrongSecretIsAuthError) {
  auto o = Options();
  o.secret = "some-other-secret-0123456789";
  auto r = RunTcpProbe(o, Ctx());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kAuth) << r.error().message;
  // The responder counts once its session thread has finished.
  for (int i = 0; i < 100 && responder_->counters().auth_failures == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(responder_->counters().auth_failures, 1u);
}

TEST_F(LoopbackProbeTest, LimitsAreEnforcedByTheResponder) {
  auto o = Options();
  o.streams = 5;
  auto r = RunTcpProbe(o, Ctx());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRejected) << r.error().message;
  o.streams = 1;
  o.duration = std::chrono::milliseconds(5000);
  r = RunTcpProbe(o, Ctx());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRejected) << r.error().message;
}

TEST_F(LoopbackProbeTest, SecondSessionIsBusyUntilTheFirstIsDropped) {
  // An authenticated session that sends no request holds the responder (the
  // responder owns it from HELLO on) for as long as the test keeps it open:
  // no race between the two probes' start times.
  ClientSessionOptions holder;
  holder.peer = responder_->bound()[0];
  holder.secret = kSecret;
  holder.probe = "tcp";
  holder.timeout = std::chrono::milliseconds(10000);
  uint64_t retry_ms = 0;
  auto held = OpenClientSession(holder, &retry_ms);
  ASSERT_TRUE(held.ok()) << held.error().message;

  auto second = RunTcpProbe(Options(), Ctx());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, ErrorCode::kBusy) << second.error().message;
  EXPECT_EQ(responder_->counters().busy_answers, 1u);

  // Closing the held session frees the responder at once: the next requester is served, not
  // told BUSY with a retry hint of the held session's whole deadline (43 s here; a loaded CI
  // host took that path every time) because the responder's session thread has not yet seen
  // the EOF. The retries only cover a FIN the kernel has not delivered by the next HELLO.
  *held = LineConn();
  auto third_options = Options();
  third_options.busy_retries = 5;
  auto third = RunTcpProbe(third_options, Ctx());
  EXPECT_TRUE(third.ok()) << third.error().message;
}

TEST(ResponderLimitsTest, ByteLimitCapsWhatTheResponderSends) {
  testing::TestContext test;
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
  auto r = RunTcpProbe(o, test.context());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_LE(r->bytes, 8u << 20);
}

TEST(ProbeErrorsTest, SilentPeerIsTimeout) {
  testing::TestContext test;
  // A listener that never answers: the connection completes in the backlog,
  // HELLO gets no reply.
  auto listener = Listen(HostPort{"127.0.0.1", 0});
  ASSERT_TRUE(listener.ok()) << listener.error().message;
  sockaddr_storage local = LocalAddress(listener->get());
  TcpProbeOptions o;
  o.peer = HostPort{"127.0.0.1", ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port)};
  o.secret = kSecret;
  o.connect_timeout = std::chrono::milliseconds(300);
  auto r = RunTcpProbe(o, test.context());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kTimeout) << r.error().message;
}

// Sets `stop` after `delay` (the exporter's shutdown) and times the run.
template <typename Run>
double SecondsUntilStopped(StopSource& stop, std::chrono::milliseconds delay, Run run) {
  auto start = std::chrono::steady_clock::now();
  std::thread stopper([&] {
    std::this_thread::sleep_for(delay);
    stop.RequestStop();
  });
  run();
  stopper.join();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST_F(LoopbackProbeTest, StopEndsTheWindowAndFreesTheResponder) {
  // The responder's streams write into sockets the abandoned probe closed;
  // both binaries ignore SIGPIPE for that (exporter/app/main.cc, cli/*).
  signal(SIGPIPE, SIG_IGN);
  auto o = Options();
  o.duration = std::chrono::milliseconds(2500);
  o.direction = Direction::kBoth;
  Result<TcpProbeResult> r = MakeError("not run");
  double took = SecondsUntilStopped(test_.stop, std::chrono::milliseconds(400),
                                    [&] { r = RunTcpProbe(o, Ctx()); });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInterrupted) << r.error().message;
  // Not waiting out the run: that takes at least warm-up + duration (2.6 s).
  EXPECT_LT(took, 2.5);
  // The abandoned session's sockets are closed: the responder takes the next.
  auto next = Options();
  next.busy_retries = 3;
  testing::TestContext fresh;  // test_'s stop stays requested.
  auto again = RunTcpProbe(next, fresh.context());
  EXPECT_TRUE(again.ok()) << again.error().message;
}

TEST(ProbeErrorsTest, StopDoesNotWaitOutASilentPeer) {
  testing::TestContext test;
  auto listener = Listen(HostPort{"127.0.0.1", 0});
  ASSERT_TRUE(listener.ok()) << listener.error().message;
  sockaddr_storage local = LocalAddress(listener->get());
  TcpProbeOptions o;
  o.peer = HostPort{"127.0.0.1", ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port)};
  o.secret = kSecret;
  o.connect_timeout = std::chrono::milliseconds(5000);
  Result<TcpProbeResult> r = MakeError("not run");
  double took = SecondsUntilStopped(test.stop, std::chrono::milliseconds(200),
                                    [&] { r = RunTcpProbe(o, test.context()); });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInterrupted) << r.error().message;
  // Not waiting out the 5 s connect timeout.
  EXPECT_LT(took, 4.0);
}

TEST(ProbeErrorsTest, RefusedIsNamed) {
  testing::TestContext test;
  TcpProbeOptions o;
  o.peer = HostPort{"127.0.0.1", 1};
  o.secret = kSecret;
  auto r = RunTcpProbe(o, test.context());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRefused) << r.error().message;
}

}  // namespace
}  // namespace fabric::probe
