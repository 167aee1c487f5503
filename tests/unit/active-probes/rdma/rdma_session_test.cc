// The RDMA session over the real control channel: a Responder on 127.0.0.1
// with the RDMA kind registered, RunRdmaProbe against it, authentication and
// admission as for TCP. The data path is the fake one (no device here); the
// sysfs roots are fixture trees whose RDMA port sits on lo.
#include "active-probes/rdma/rdma_session.h"

#include <gtest/gtest.h>

#include <thread>

#include "active-probes/rdma/rdma_probe.h"
#include "active-probes/rdma/rdma_session.h"
#include "active-probes/responder/responder.h"
#include "tests/unit/active-probes/probe/probe_test_context.h"
#include "tests/unit/active-probes/rdma/fake_rdma_backend.h"
#include "tests/unit/active-probes/responder/loopback_responder_options.h"

namespace fabric::probe {
namespace {

constexpr char kSecret[] = "rdma-loopback-secret-0123456789";

std::string FixtureSys(const std::string& name) {
  return std::string(FABRIC_SOURCE_DIR) + "/tests/fixtures/rdma-" + name + "/sys";
}

class RdmaControlTest : public ::testing::Test {
 protected:
  void StartResponder(bool with_rdma = true, std::string sysfs = FixtureSys("loopback"),
                      RdmaResponderOptions rdma = {}) {
    // The idle timeout is above the pauses a loaded CI host makes between control messages;
    // one test waits it out (the responder's wait for queue pairs).
    ResponderOptions o = LoopbackResponderOptions(kSecret, 8, std::chrono::milliseconds(3000));
    o.root = SysRoot("/proc", std::move(sysfs));
    if (with_rdma) AddRdmaSessionKind(o, responder_backend_, rdma);
    responder_ = std::make_unique<Responder>(o);
    ASSERT_TRUE(responder_->Start().ok());
  }

  RdmaProbeOptions Options() {
    RdmaProbeOptions o;
    o.peer = responder_->bound()[0];
    o.secret = kSecret;
    o.qps = 3;
    o.size = 4096;
    o.tx_depth = 16;
    o.duration = std::chrono::milliseconds(300);
    o.warmup = std::chrono::milliseconds(100);
    o.connect_timeout = std::chrono::milliseconds(2000);
    return o;
  }
  // Our side's sysfs is the loopback fixture (its port sits on lo, up).
  ProbeContext Ctx() { return local_.context(); }
  fabric::testing::TestContext local_{SysRoot("/proc", FixtureSys("loopback"))};

  // One fake fabric for both ends, so the responder's target sees the QP
  // connects the probe's initiator makes.
  testing::FakeRdmaBackend backend_;
  testing::FakeRdmaBackend& responder_backend_ = backend_;
  testing::FakeRdmaBackend& probe_backend_ = backend_;
  std::unique_ptr<Responder> responder_;
};

TEST_F(RdmaControlTest, ExchangesRegionOverTheAuthenticatedChannel) {
  StartResponder();
  probe_backend_.fabric.local_active_mtu = 1024;
  auto r = RunRdmaProbe(Options(), Ctx(), probe_backend_);
  ASSERT_TRUE(r.ok()) << r.error().message;

  // The responder registered a region sized for the test and advertised it;
  // the initiator got exactly that address, rkey and token.
  const auto& target = backend_.fabric;
  const auto& init = backend_.fabric.last_initiator_request;
  EXPECT_EQ(target.last_target_request.region_bytes, 3u * 4096);
  EXPECT_EQ(target.last_target_request.qps, 3u);
  EXPECT_EQ(init.remote.addr, target.last_region.addr);
  EXPECT_EQ(init.remote.rkey, target.last_region.rkey);
  EXPECT_EQ(init.remote.cm_port, target.last_region.cm_port);
  EXPECT_EQ(init.token, target.last_target_token);
  EXPECT_EQ(init.token.size(), 32u);
  EXPECT_EQ(init.qps, 3u);
  EXPECT_EQ(init.tx_depth, 16u);
  // QPs may only come from the authenticated peer.
  EXPECT_EQ(AddressText(target.last_target_request.peer), "127.0.0.1");
  EXPECT_EQ(AddressText(init.peer), "127.0.0.1");

  // The result: bandwidth from the window counter, MTU the smaller end's.
  EXPECT_EQ(r->device, "fake0");
  EXPECT_EQ(r->netdev, "lo");
  EXPECT_EQ(r->remote_device, "fake0");
  EXPECT_EQ(r->local_active_mtu, 1024u);
  EXPECT_EQ(r->remote_active_mtu, 4096u);
  EXPECT_EQ(r->mtu, 1024u);
  ASSERT_EQ(r->per_qp.size(), 3u);
  EXPECT_GT(r->bytes, 0u);
  EXPECT_EQ(r->bytes, r->messages * 4096);
  // The window runs from the first completion counted after the warm-up to
  // the last one, so it can end a few ms short of the 0.3 s asked (0.288 s
  // seen under ASan); it must be neither a fraction of it nor the warm-up
  // added several times (a loaded host overruns by scheduling delays only).
  EXPECT_GT(r->window_seconds, 0.15);
  EXPECT_LT(r->window_seconds, 5.0);
  EXPECT_DOUBLE_EQ(r->bytes_per_second, static_cast<double>(r->bytes) / r->window_seconds);
  // The fake completes 2, 4, 6 per poll on QPs 0, 1, 2.
  EXPECT_EQ(r->per_qp[2].messages, 3 * r->per_qp[0].messages);
  EXPECT_DOUBLE_EQ(r->qp_min_bytes_per_second, r->per_qp[0].bytes_per_second);
  EXPECT_DOUBLE_EQ(r->qp_max_bytes_per_second, r->per_qp[2].bytes_per_second);
  // Fixture counters do not move: the cross-check says so instead of passing.
  EXPECT_EQ(r->local_counters.xmit_bytes, 0u);
  EXPECT_EQ(r->local_counters_before.xmit_bytes, 1000u);  // 250 words in the fixture
  EXPECT_EQ(r->local_counters_after.xmit_bytes, 1000u);
  EXPECT_EQ(r->remote_counters.rcv_bytes, 0u);
  EXPECT_FALSE(r->counters_consistent);
  EXPECT_FALSE(r->congested);

  // Session over: the region was deregistered, the slot is free again.
  EXPECT_EQ(target.regions_registered, 1);
  EXPECT_EQ(target.regions_deregistered, 1);
  EXPECT_EQ(responder_->counters().sessions_completed, 1u);
  auto again = RunRdmaProbe(Options(), Ctx(), probe_backend_);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(responder_backend_.fabric.regions_deregistered, 2);
}

TEST_F(RdmaControlTest, ResponderLimitsRejectBeforeRegistering) {
  RdmaResponderOptions rdma;
  rdma.max_region_bytes = 64 * 1024;
  StartResponder(true, FixtureSys("loopback"), rdma);
  auto o = Options();
  o.qps = 9;  // responder allows 8
  auto r = RunRdmaProbe(o, Ctx(), probe_backend_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRejected) << r.error().message;
  EXPECT_NE(r.error().message.find("qps-over-limit:8"), std::string::npos);

  o = Options();
  o.size = 65536;  // 3 x 64 KiB over a 64 KiB region limit
  r = RunRdmaProbe(o, Ctx(), probe_backend_);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("region-over-limit"), std::string::npos) << r.error().message;

  o = Options();
  o.duration = std::chrono::milliseconds(5000);
  r = RunRdmaProbe(o, Ctx(), probe_backend_);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("duration-over-limit"), std::string::npos);
  EXPECT_EQ(responder_backend_.fabric.regions_registered, 0);
  EXPECT_EQ(responder_->counters().rejected_requests, 3u);
}

TEST_F(RdmaControlTest, AuthenticationIsTheResponders) {
  StartResponder();
  auto o = Options();
  o.secret = "not-the-secret-at-all-0000";
  auto r = RunRdmaProbe(o, Ctx(), probe_backend_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kAuth) << r.error().message;
  EXPECT_EQ(responder_backend_.fabric.regions_registered, 0);
}

TEST_F(RdmaControlTest, QpsWithoutTheSessionTokenAreNotAccepted) {
  StartResponder();
  probe_backend_.fabric.token_override = std::string(32, '0');
  auto r = RunRdmaProbe(Options(), Ctx(), probe_backend_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRefused) << r.error().message;
  // The region registered for the session is released all the same, when
  // the responder's session ends (it waits out its idle timeout for the
  // queue pairs); the counters' lock orders its cleanup before our reads.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  auto ended = [&] {
    auto c = responder_->counters();
    return c.sessions_completed + c.sessions_failed + c.rejected_requests + c.auth_failures;
  };
  while (ended() == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(ended(), 1u);
  EXPECT_EQ(responder_backend_.fabric.regions_registered, 1);
  EXPECT_EQ(responder_backend_.fabric.regions_deregistered, 1);
}

TEST_F(RdmaControlTest, ResponderWithoutRdmaDeviceSaysSo) {
  // The responder's sysfs has no class/infiniband (this very host).
  StartResponder(true, FixtureSys("two-devices") + "/nonexistent");
  auto r = RunRdmaProbe(Options(), Ctx(), probe_backend_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRejected) << r.error().message;
  EXPECT_NE(r.error().message.find("the responder has no RDMA device"), std::string::npos)
      << r.error().message;
}

TEST_F(RdmaControlTest, ResponderWithDownPortSaysSo) {
  StartResponder(true, FixtureSys("loopback-down"));
  auto r = RunRdmaProbe(Options(), Ctx(), probe_backend_);
  ASSERT_FALSE(r.ok());
  // The same code as our own port down (exit 10, the rung's no_active_port).
  EXPECT_EQ(r.error().code, ErrorCode::kNoActivePort) << r.error().message;
  EXPECT_NE(r.error().message.find("the responder's RDMA device has no active port"),
            std::string::npos)
      << r.error().message;
  EXPECT_EQ(backend_.fabric.regions_registered, 0);
}

TEST_F(RdmaControlTest, ResponderWithoutTheRdmaKindRejects) {
  StartResponder(/*with_rdma=*/false);
  auto r = RunRdmaProbe(Options(), Ctx(), probe_backend_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRejected) << r.error().message;
}

TEST_F(RdmaControlTest, NoLocalDeviceFailsBeforeContactingThePeer) {
  StartResponder();
  auto o = Options();
  fabric::testing::TestContext none(SysRoot("/proc", FixtureSys("two-devices") + "/nonexistent"));
  auto r = RunRdmaProbe(o, none.context(), probe_backend_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kNoDevice) << r.error().message;
  EXPECT_EQ(responder_->counters().sessions_completed + responder_->counters().sessions_failed, 0u);

  // A device that exists but whose port is down.
  fabric::testing::TestContext two(SysRoot("/proc", FixtureSys("two-devices")));
  o.device = "mlx5_1";
  r = RunRdmaProbe(o, two.context(), probe_backend_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kNoActivePort) << r.error().message;
  EXPECT_NE(r.error().message.find("device mlx5_1 has no active port"), std::string::npos)
      << r.error().message;

  // Devices exist, but none on the interface the control connection uses (lo).
  o.device.clear();
  r = RunRdmaProbe(o, two.context(), probe_backend_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kNoDevice) << r.error().message;
  EXPECT_NE(r.error().message.find("no RDMA device on interface lo"), std::string::npos)
      << r.error().message;
}

TEST_F(RdmaControlTest, StopEndsTheRunAndFreesTheResponder) {
  // A signal (fabric_probe rdma) or the exporter's shutdown requests the stop
  // mid-window: the run ends within a sweep of the data path, the region and
  // the queue pairs go, and the responder takes the next session.
  StartResponder();
  auto o = Options();
  o.duration = std::chrono::milliseconds(2500);
  fabric::testing::TestContext stopped(SysRoot("/proc", FixtureSys("loopback")));
  const auto start = std::chrono::steady_clock::now();
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    stopped.stop.RequestStop();
  });
  auto r = RunRdmaProbe(o, stopped.context(), probe_backend_);
  stopper.join();
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInterrupted) << r.error().message;
  // Not waiting out the run: that takes at least warm-up + duration (2.6 s).
  EXPECT_LT(took, 2.5);
  auto next = Options();
  next.busy_retries = 3;  // The responder may still be noticing the abandoned session.
  auto again = RunRdmaProbe(next, Ctx(), probe_backend_);
  EXPECT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(responder_backend_.fabric.regions_deregistered, 2);
}

TEST_F(RdmaControlTest, DefaultBackendOnThisHost) {
  // The build's own backend on the real /sys: without RDMA hardware the
  // answer is "no RDMA device", never a crash or a number.
  StartResponder();
  auto o = Options();
  fabric::testing::TestContext host;
  auto r = RunRdmaProbe(o, host.context());
  if (r.ok()) GTEST_SKIP() << "this host has a working RDMA port";
  EXPECT_TRUE(r.error().code == ErrorCode::kNoDevice || r.error().code == ErrorCode::kNoActivePort)
      << r.error().message;
}

}  // namespace
}  // namespace fabric::probe
