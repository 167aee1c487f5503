// Pure pieces of the RDMA probe: parameter validation, the control messages,
// the bandwidth arithmetic and the self-check verdicts.
#include <gtest/gtest.h>

#include "active-probes/rdma/rdma_messages.h"
#include "active-probes/rdma/rdma_probe.h"
#include "active-probes/rdma/rdma_report.h"
#include "active-probes/rdma/rdma_self_checks.h"
#include "active-probes/rdma/window_counter.h"

namespace fabric::probe {
namespace {

RdmaProbeOptions Valid() {
  RdmaProbeOptions o;
  o.peer = {"192.0.2.1", 9878};
  o.secret = "0123456789abcdef";
  return o;
}

TEST(RdmaOptions, DefaultsMatchIbWriteBwClass) {
  RdmaProbeOptions o;
  EXPECT_EQ(o.qps, 4u);
  EXPECT_EQ(o.size, 65536u);
  EXPECT_EQ(o.tx_depth, 128u);
  EXPECT_TRUE(ValidateRdmaOptions(Valid()).ok());
}

TEST(RdmaOptions, RejectsOutOfRange) {
  auto bad = [](auto mutate) {
    RdmaProbeOptions o = Valid();
    mutate(o);
    auto s = ValidateRdmaOptions(o);
    return s.ok() ? std::string() : s.error().message;
  };
  EXPECT_NE(bad([](auto& o) { o.qps = 0; }).find("--qps"), std::string::npos);
  EXPECT_NE(bad([](auto& o) { o.qps = kMaxRdmaQps + 1; }).find("--qps"), std::string::npos);
  EXPECT_NE(bad([](auto& o) { o.size = 0; }).find("--size"), std::string::npos);
  EXPECT_NE(bad([](auto& o) { o.tx_depth = 0; }).find("--tx-depth"), std::string::npos);
  EXPECT_NE(bad([](auto& o) { o.tx_depth = kMaxRdmaTxDepth + 1; }).find("--tx-depth"),
            std::string::npos);
  EXPECT_NE(bad([](auto& o) { o.duration = std::chrono::milliseconds(50); }).find("--duration"),
            std::string::npos);
  EXPECT_NE(bad([](auto& o) { o.peer.host.clear(); }).find("--peer"), std::string::npos);
  EXPECT_NE(bad([](auto& o) { o.secret.clear(); }).find("secret"), std::string::npos);
  EXPECT_NE(bad([](auto& o) {
              o.qps = 256;
              o.size = 1u << 30;
            }).find("16 GiB"),
            std::string::npos);
}

TEST(RdmaMessages, RequestRoundTrip) {
  RdmaRequest r{4, 65536, 128, 5000, 1000};
  auto line = FormatMessage(RdmaRequestToMessage(r));
  EXPECT_EQ(line, "RDMA_TEST duration_ms=5000 qps=4 size=65536 tx_depth=128 warmup_ms=1000\n");
  auto parsed = RdmaRequestFromMessage(*ParseMessage(line.substr(0, line.size() - 1)));
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->qps, 4u);
  EXPECT_EQ(parsed->region_bytes(), 4u * 65536);
  EXPECT_FALSE(RdmaRequestFromMessage(*ParseMessage("RDMA_TEST qps=4")).ok());
  EXPECT_FALSE(RdmaRequestFromMessage(
                   *ParseMessage("RDMA_TEST qps=99999999999 size=1 tx_depth=1 duration_ms=1 "
                                 "warmup_ms=0"))
                   .ok());
  EXPECT_FALSE(RdmaRequestFromMessage(*ParseMessage("TEST qps=4")).ok());
}

TEST(RdmaMessages, AcceptCarriesRegionAndToken) {
  RdmaRegion region;
  region.addr = 0x7f00deadb000;
  region.rkey = 0x1234;
  region.length = 262144;
  region.cm_port = 40001;
  region.device = "mlx5_0";
  region.port = 1;
  region.active_mtu = 4096;
  std::string token(32, 'a');
  auto m = RdmaAcceptToMessage(region, token);
  EXPECT_EQ(m.Get("addr"), "0x7f00deadb000");
  auto line = FormatMessage(m);
  auto back = RdmaAcceptFromMessage(*ParseMessage(line.substr(0, line.size() - 1)));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->first.addr, region.addr);
  EXPECT_EQ(back->first.rkey, region.rkey);
  EXPECT_EQ(back->first.length, region.length);
  EXPECT_EQ(back->first.cm_port, 40001);
  EXPECT_EQ(back->first.device, "mlx5_0");
  EXPECT_EQ(back->first.active_mtu, 4096u);
  EXPECT_EQ(back->second, token);

  auto broken = m;
  broken.Set("addr", "12345");
  EXPECT_FALSE(RdmaAcceptFromMessage(broken).ok());
  broken = m;
  broken.Set("token", "short");
  EXPECT_FALSE(RdmaAcceptFromMessage(broken).ok());
  broken = m;
  broken.Set("cm_port", "0");
  EXPECT_FALSE(RdmaAcceptFromMessage(broken).ok());
  broken = m;
  broken.fields.erase("rkey");
  EXPECT_FALSE(RdmaAcceptFromMessage(broken).ok());
}

TEST(RdmaMessages, SideReportKeepsAbsentCountersAbsent) {
  RdmaSideReport r;
  r.counters.rcv_bytes = 1000;
  r.counters.np_cnp_sent = 3;
  r.user_seconds = 0.25;
  auto m = RdmaSideReportToMessage(r);
  EXPECT_FALSE(m.Get("xmit_bytes").has_value());
  auto back = RdmaSideReportFromMessage(m);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->counters.rcv_bytes, 1000u);
  EXPECT_EQ(back->counters.np_cnp_sent, 3u);
  EXPECT_FALSE(back->counters.xmit_bytes.has_value());
  EXPECT_FALSE(back->counters.out_of_buffer.has_value());
  EXPECT_DOUBLE_EQ(back->user_seconds, 0.25);
  m.Set("rcv_bytes", "lots");
  EXPECT_FALSE(RdmaSideReportFromMessage(m).ok());
}

constexpr int64_t kMs = 1000000;

TEST(WindowCounter, CountsOnlyInsideTheWindow) {
  WindowCounter c(2, 100 * kMs, 1100 * kMs);
  c.Poll(50 * kMs, 0, 1000);  // warm-up: ignored
  c.Poll(100 * kMs, 0, 500);  // opens the window; accumulated before it: ignored
  c.Poll(100 * kMs, 1, 500);  // same sweep, same edge
  for (int64_t t = 200; t <= 1100; t += 100) {
    c.Poll(t * kMs, 0, 10);
    c.Poll(t * kMs, 1, 5);
  }
  EXPECT_FALSE(c.done());
  c.Poll(1101 * kMs, 0, 99);  // after the end: ignored, closes
  EXPECT_TRUE(c.done());
  auto t = c.Finish(65536);
  ASSERT_TRUE(t.ok());
  EXPECT_DOUBLE_EQ(t->window_seconds, 1.0);
  EXPECT_EQ(t->qp_messages, (std::vector<uint64_t>{100, 50}));
  EXPECT_EQ(t->messages, 150u);
  EXPECT_EQ(t->bytes, 150u * 65536);
  // What the port carried: warm-up, the opening edge and the drain too.
  EXPECT_EQ(t->all_bytes, (1000u + 500 + 500 + 150 + 99) * 65536);
  EXPECT_DOUBLE_EQ(t->bytes_per_second, 150.0 * 65536);
  EXPECT_DOUBLE_EQ(t->messages_per_second, 150.0);
  EXPECT_DOUBLE_EQ(t->qp_min_bytes_per_second, 50.0 * 65536);
  EXPECT_DOUBLE_EQ(t->qp_max_bytes_per_second, 100.0 * 65536);
}

TEST(WindowCounter, MeasuresBetweenPollsNotNominalEdges) {
  // 24.4 GB/s in 64 KiB messages, polled every 10 us, window opens late.
  WindowCounter c(1, 0, 1000 * kMs);
  const double rate = 24.4e9;
  const int64_t step = 10000;  // ns
  int64_t t = 3000;            // first poll 3 us after the nominal start
  double carry = 0;
  while (!c.done()) {
    carry += rate * static_cast<double>(step) * 1e-9 / 65536;
    uint64_t n = static_cast<uint64_t>(carry);
    carry -= static_cast<double>(n);
    c.Poll(t, 0, n);
    t += step;
  }
  auto r = c.Finish(65536);
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->window_seconds, 0.99999, 1e-5);
  EXPECT_NEAR(r->bytes_per_second / rate, 1.0, 1e-4);
}

TEST(WindowCounter, EmptyWindowIsAnError) {
  WindowCounter c(1, 100, 200);
  c.Poll(50, 0, 4);
  c.Poll(300, 0, 4);
  EXPECT_FALSE(c.Finish(4096).ok());
  WindowCounter one(1, 100, 200);
  one.Poll(150, 0, 4);  // opens, but nothing after it
  EXPECT_FALSE(one.Finish(4096).ok());
}

RdmaProbeResult Healthy() {
  RdmaProbeResult r;
  r.device = "mlx5_0";
  r.port = 1;
  r.remote_device = "mlx5_1";
  r.remote_port = 1;
  r.qps = 4;
  r.size = 65536;
  r.tx_depth = 128;
  r.mtu = 4096;
  r.link_bits_per_second = 200e9;
  r.window_seconds = 1;
  r.bytes = 24'400'000'000;
  r.messages = r.bytes / 65536;
  r.bytes_per_second = 24.4e9;
  r.qp_min_bytes_per_second = 6.0e9;
  r.qp_max_bytes_per_second = 6.2e9;
  r.local_counters.xmit_bytes = r.bytes + r.bytes / 4096 * 70;
  r.remote_counters.rcv_bytes = r.local_counters.xmit_bytes;
  r.local_counters.rp_cnp_handled = 0;
  r.remote_counters.np_cnp_sent = 0;
  r.remote_counters.out_of_buffer = 0;
  return r;
}

TEST(RdmaSelfChecks, LineRateRunIsClean) {
  auto r = Healthy();
  EvaluateRdmaSelfChecks(r, 0.97);
  EXPECT_FALSE(r.cpu_bound);
  EXPECT_FALSE(r.contended);
  EXPECT_FALSE(r.qp_limited);
  EXPECT_FALSE(r.congested);
  EXPECT_TRUE(r.counters_consistent);
  EXPECT_TRUE(r.notes.empty());
}

TEST(RdmaSelfChecks, Verdicts) {
  auto starved = Healthy();
  EvaluateRdmaSelfChecks(starved, 0.2);
  EXPECT_TRUE(starved.cpu_bound);

  auto other = Healthy();
  other.local_counters.xmit_bytes = other.bytes * 3 / 2;  // someone else's traffic
  EvaluateRdmaSelfChecks(other, 1.0);
  EXPECT_TRUE(other.contended);
  EXPECT_FALSE(other.counters_consistent);

  auto cnp = Healthy();
  cnp.remote_counters.np_cnp_sent = 1200;
  EvaluateRdmaSelfChecks(cnp, 1.0);
  EXPECT_TRUE(cnp.congested);

  auto slow = Healthy();
  slow.bytes_per_second = 10e9;
  slow.bytes = 10'000'000'000;
  slow.messages = slow.bytes / 65536;
  slow.local_counters.xmit_bytes = slow.bytes;
  slow.remote_counters.rcv_bytes = slow.bytes;
  slow.qp_min_bytes_per_second = 1e9;
  slow.qp_max_bytes_per_second = 4e9;
  EvaluateRdmaSelfChecks(slow, 1.0);
  EXPECT_TRUE(slow.qp_limited);
  EXPECT_NE(slow.notes.back().find("uneven"), std::string::npos);

  auto no_counter = Healthy();
  no_counter.local_counters.xmit_bytes.reset();
  EvaluateRdmaSelfChecks(no_counter, 1.0);
  EXPECT_FALSE(no_counter.counters_consistent);
  EXPECT_FALSE(no_counter.contended);
}

// Issue 42 item 3: a transfer into the responder fills its receive side; the
// probe's WRITEs get 60% of the 200 Gbit/s line and our own port carries
// nothing else. Judged at our end alone that was a clean result below line.
RdmaProbeResult SharedReceiveSide(uint64_t other_bytes) {
  auto r = Healthy();
  r.bytes = 15'000'000'000;
  r.messages = r.bytes / 65536;
  r.bytes_per_second = 15e9;
  r.qp_min_bytes_per_second = 3.7e9;
  r.qp_max_bytes_per_second = 3.8e9;
  r.local_counters.xmit_bytes = r.bytes + r.bytes / 4096 * 70;
  r.remote_counters.rcv_bytes = *r.local_counters.xmit_bytes + other_bytes;
  return r;
}

TEST(RdmaSelfChecks, ContendedAtTheRespondersReceiveSide) {
  auto r = SharedReceiveSide(10'000'000'000);  // 10 GB/s of someone else's transfer
  EvaluateRdmaSelfChecks(r, 1.0);
  EXPECT_TRUE(r.contended);
  EXPECT_FALSE(r.qp_limited);          // the result is a share, not a per-QP ceiling
  EXPECT_TRUE(r.counters_consistent);  // our own port agrees with the completions
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes.front().find("contended: responder mlx5_1 port 1 received"), std::string::npos)
      << r.notes.front();
}

TEST(RdmaSelfChecks, RespondersReceiveSideWithinTheToleranceIsClean) {
  // 8% beyond the probe's own bytes (ACK timing, the WRITEs in flight at the
  // marks): under the 10% the TCP probe allows too.
  auto r = SharedReceiveSide(1'200'000'000);
  EvaluateRdmaSelfChecks(r, 1.0);
  EXPECT_FALSE(r.contended);
  EXPECT_TRUE(r.qp_limited);  // 60% of line with full queues: the QPs' own ceiling
}

TEST(RdmaSelfChecks, ResponderWithoutReceiveCounterSaysSo) {
  auto r = SharedReceiveSide(0);
  r.remote_counters.rcv_bytes.reset();  // a driver (or a peer) that reports none
  EvaluateRdmaSelfChecks(r, 1.0);
  EXPECT_FALSE(r.contended);
  bool said = false;
  for (const auto& note : r.notes) {
    said = said || note.find("contention judged at this end only") != std::string::npos;
  }
  EXPECT_TRUE(said);
}

// The error kinds (JSON kind, exit status) are active-probes/probe/error_kinds'
// table: tests/unit/active-probes/probe/error_kinds_test.cc.
TEST(RdmaReport, JsonShape) {
  auto r = Healthy();
  r.peer = "192.0.2.1:9878";
  r.per_qp = {{100, 1, 1.5}};
  r.local_counters.np_cnp_sent.reset();
  auto json = RdmaResultToJson(r);
  for (const char* key :
       {"\"peer\":\"192.0.2.1:9878\"", "\"bytes_per_second\":", "\"messages_per_second\":",
        "\"duration_seconds\":", "\"warmup_seconds\":", "\"per_qp_bytes_per_second\":{\"min\":",
        "\"cpu\":{\"local\":", "\"responder\":", "\"self_checks\":{\"cpu_bound\":",
        "\"np_cnp_sent\":null", "\"notes\":["}) {
    EXPECT_NE(json.find(key), std::string::npos) << key << " in " << json;
  }
}

}  // namespace
}  // namespace fabric::probe
