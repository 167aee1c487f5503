// The probe's verdicts on its own results, on constructed results whose
// right answer is known (shapes 1-3 of docs/bottleneck-shapes.md).
#include "active-probes/tcp/self_checks.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace fabric::probe {
namespace {

constexpr double kGbit = 1e9 / 8;

TcpProbeResult Even(uint32_t streams, double per_stream_gbit) {
  TcpProbeResult r;
  r.streams = streams;
  DirectionResult d;
  d.direction = Direction::kSend;
  d.streams = streams;
  d.stream_bytes_per_second.assign(streams, per_stream_gbit * kGbit);
  d.per_stream = Summarize(d.stream_bytes_per_second);
  d.bytes_per_second = streams * per_stream_gbit * kGbit;
  r.directions.push_back(d);
  r.bytes_per_second = d.bytes_per_second;
  r.link_bits_per_second = 200e9;
  return r;
}

// A result at line rate whose every input sits just below the threshold of
// its check: CPU threads and hosts at 89%, 9% more NIC bytes than the probe
// explains, window- and buffer-limited fractions at 49%, 69% of window / RTT.
// The sender threads at 95% would cap each stream, but the link is full. The
// senders had data queued 79% of the window: starved, so a busy host would
// count.
TcpProbeResult CleanNearMiss() {
  auto r = Even(32, 6.1);  // 195 Gbit/s on a 200G link
  r.local_cpu.max_thread_cpu = 0.89;
  r.local_cpu.host_max_cpu_busy = 0.89;
  r.local_cpu.host_max_cpu = 3;
  r.remote_cpu = r.local_cpu;
  r.nic_valid = true;
  r.iface = "ens1f0np0";
  r.expected_nic_bytes = 10'000'000'000;
  r.nic_bytes = 10'900'000'000;
  r.responder_nic_valid = true;
  r.responder_iface = "ens1f0np0";
  r.responder_expected_nic_bytes = 10'000'000'000;
  r.responder_nic_bytes = 10'900'000'000;
  auto& d = r.directions[0];
  d.max_sender_thread_cpu = 0.95;
  d.rwnd_limited_fraction = 0.49;
  d.window_bound_ratio = 0.69;
  d.sndbuf_limited_fraction = 0.49;
  d.sender_busy_fraction = 0.79;
  return r;
}

TEST(SelfChecksTest, CleanResultHasNoFlags) {
  auto r = CleanNearMiss();
  EvaluateSelfChecks(r);
  EXPECT_FALSE(r.checks.cpu_bound);
  EXPECT_FALSE(r.checks.contended);
  EXPECT_FALSE(r.checks.stream_limited);  // at line rate, the streams are not the limit
  EXPECT_FALSE(r.checks.receiver_window_limited);
  EXPECT_FALSE(r.checks.send_buffer_limited);
  EXPECT_TRUE(r.checks.notes.empty()) << r.checks.notes.front();
}

// The same result with one input moved over its threshold raises exactly that
// flag, with a note that names it: the clean result above is clean because
// every check looked and found nothing, not because one ignored its input.
TEST(SelfChecksTest, EachInputOverItsThresholdRaisesItsFlagAlone) {
  struct Case {
    const char* flag;
    std::function<void(TcpProbeResult&)> push;
    bool SelfChecks::*raised;
  };
  const Case cases[] = {
      {"cpu_bound", [](TcpProbeResult& r) { r.local_cpu.max_thread_cpu = 0.91; },
       &SelfChecks::cpu_bound},
      {"cpu_bound", [](TcpProbeResult& r) { r.local_cpu.host_max_cpu_busy = 0.91; },
       &SelfChecks::cpu_bound},
      {"contended", [](TcpProbeResult& r) { r.responder_nic_bytes = 11'200'000'000; },
       &SelfChecks::contended},
      {"contended", [](TcpProbeResult& r) { r.nic_bytes = 11'200'000'000; },
       &SelfChecks::contended},
      {"receiver_window_limited",
       [](TcpProbeResult& r) { r.directions[0].rwnd_limited_fraction = 0.51; },
       &SelfChecks::receiver_window_limited},
      {"receiver_window_limited",
       [](TcpProbeResult& r) { r.directions[0].window_bound_ratio = 0.71; },
       &SelfChecks::receiver_window_limited},
      {"send_buffer_limited",
       [](TcpProbeResult& r) { r.directions[0].sndbuf_limited_fraction = 0.51; },
       &SelfChecks::send_buffer_limited},
      // 195 Gbit/s on a 400G link: the same even streams, each at its
      // thread's ceiling, now leave half the link unused.
      {"stream_limited", [](TcpProbeResult& r) { r.link_bits_per_second = 400e9; },
       &SelfChecks::stream_limited},
  };
  bool SelfChecks::*all[] = {&SelfChecks::cpu_bound, &SelfChecks::contended,
                             &SelfChecks::stream_limited, &SelfChecks::receiver_window_limited,
                             &SelfChecks::send_buffer_limited};
  for (const auto& c : cases) {
    auto r = CleanNearMiss();
    c.push(r);
    EvaluateSelfChecks(r);
    for (auto flag : all) EXPECT_EQ(r.checks.*flag, flag == c.raised) << c.flag;
    ASSERT_EQ(r.checks.notes.size(), 1u) << c.flag;
    EXPECT_EQ(r.checks.notes[0].rfind(std::string(c.flag) + ": ", 0), 0u) << r.checks.notes[0];
  }
}

TEST(SelfChecksTest, StreamCountArtefact) {
  // Field shape 3: 8 x 14 Gbit/s = 112 Gbit/s on 200G, each thread on its core.
  auto r = Even(8, 14);
  r.directions[0].max_sender_thread_cpu = 0.97;
  r.local_cpu.max_thread_cpu = 0.97;
  EvaluateSelfChecks(r);
  EXPECT_TRUE(r.checks.stream_limited);
  EXPECT_TRUE(r.checks.cpu_bound);
}

TEST(SelfChecksTest, UnevenStreamsUnderABottleneckAreNotStreamLimited) {
  auto r = Even(4, 0.25);  // fair share of a shaped 1G path, no per-stream cap
  EvaluateSelfChecks(r);
  EXPECT_FALSE(r.checks.stream_limited);
  EXPECT_FALSE(r.checks.cpu_bound);
  EXPECT_FALSE(r.checks.receiver_window_limited);
}

TEST(SelfChecksTest, ReceiverWindow) {
  auto r = Even(1, 3.9);  // shape 1: 208 KB buffers cap a stream near 4 Gbit/s
  r.directions[0].rwnd_limited_fraction = 0.8;
  EvaluateSelfChecks(r);
  EXPECT_TRUE(r.checks.receiver_window_limited);
  EXPECT_TRUE(r.checks.stream_limited);
  r = Even(1, 3.9);
  r.directions[0].rwnd_limited_fraction = 0.3;
  EvaluateSelfChecks(r);
  EXPECT_FALSE(r.checks.receiver_window_limited);
}

TEST(SelfChecksTest, ReceiverWindowByArithmetic) {
  // Shape 1 at 0.4 ms RTT: a 208 KB window allows 208e3 / 0.4e-3 = 520 MB/s
  // (4.2 Gbit/s); a stream at 3.9 Gbit/s is 94% of that, even when the
  // kernel's rwnd-limited timer saw only 30%.
  auto r = Even(1, 3.9);
  r.directions[0].rwnd_limited_fraction = 0.3;
  r.directions[0].window_bound_ratio = 3.9 * kGbit / (208e3 / 0.4e-3);
  EvaluateSelfChecks(r);
  EXPECT_TRUE(r.checks.receiver_window_limited);
  // A 32 MB window at the same RTT allows 80 GB/s: 3.9 Gbit/s is not window-bound.
  r = Even(1, 3.9);
  r.directions[0].rwnd_limited_fraction = 0.3;
  r.directions[0].window_bound_ratio = 3.9 * kGbit / (32e6 / 0.4e-3);
  EvaluateSelfChecks(r);
  EXPECT_FALSE(r.checks.receiver_window_limited);
}

TEST(SelfChecksTest, HostCpu) {
  // Kernels without TCP_INFO busy time: a busy host counts, as it cannot be told apart.
  auto r = Even(2, 5);
  r.local_cpu.host_max_cpu_busy = 0.92;
  r.local_cpu.host_max_cpu = 3;
  EvaluateSelfChecks(r);
  EXPECT_TRUE(r.checks.cpu_bound);
  r = Even(2, 5);
  r.local_cpu.host_max_cpu_busy = 0.85;
  EvaluateSelfChecks(r);
  EXPECT_FALSE(r.checks.cpu_bound);
}

// A busy host limits the probe only where the probe waited on it.
TEST(SelfChecksTest, BusyHostCountsWhereTheProbeWaitedOnIt) {
  // The local senders ran dry 40% of the window on a host at 95%: the host held them.
  auto r = Even(2, 5);
  r.local_cpu.host_max_cpu_busy = 0.95;
  r.local_cpu.host_max_cpu = 1;
  r.directions[0].sender_busy_fraction = 0.6;
  EvaluateSelfChecks(r);
  EXPECT_TRUE(r.checks.cpu_bound);
  ASSERT_EQ(r.checks.notes.size(), 1u);
  EXPECT_EQ(r.checks.notes[0],
            "cpu_bound: local host CPU 1 was 95% busy and its senders had data queued 60% of "
            "the window");
  // The responder received and its host was at 95% while the window stayed closed: it did
  // not drain its sockets.
  r = Even(2, 5);
  r.remote_cpu.host_max_cpu_busy = 0.95;
  r.directions[0].sender_busy_fraction = 1.0;
  r.directions[0].rwnd_limited_fraction = 0.6;
  EvaluateSelfChecks(r);
  EXPECT_TRUE(r.checks.cpu_bound);
  EXPECT_TRUE(r.checks.receiver_window_limited);
}

// A shaped path on a busy shared host (the stack test's 2-core machine, a node also running
// its jobs): the senders always had data, the window stayed open, the link set the rate. The
// result measured the path and must reach the cause alerts.
TEST(SelfChecksTest, BusyHostDoesNotCountWhenTheLinkSetThePace) {
  auto r = Even(2, 0.125);
  r.local_cpu.host_max_cpu_busy = 0.97;
  r.remote_cpu.host_max_cpu_busy = 0.97;
  r.directions[0].sender_busy_fraction = 0.99;
  r.directions[0].rwnd_limited_fraction = 0.1;
  EvaluateSelfChecks(r);
  EXPECT_FALSE(r.checks.cpu_bound);
  EXPECT_TRUE(r.checks.notes.empty()) << r.checks.notes.front();
}

TEST(SelfChecksTest, ContendedAtTheResponder) {
  // 40% more bytes through the responder's NIC than the probe explains: another sender into
  // the peer shared the path at the far end, invisible from this end.
  auto r = Even(1, 1);
  r.nic_valid = true;
  r.expected_nic_bytes = 100'000'000;
  r.nic_bytes = 101'000'000;
  r.responder_nic_valid = true;
  r.responder_iface = "ens1f0np0";
  r.responder_expected_nic_bytes = 100'000'000;
  r.responder_nic_bytes = 140'000'000;
  EvaluateSelfChecks(r);
  EXPECT_TRUE(r.checks.contended);
  ASSERT_EQ(r.checks.notes.size(), 1u);
  EXPECT_EQ(r.checks.notes[0].rfind("contended: responder ens1f0np0 moved 140000000", 0), 0u)
      << r.checks.notes[0];
}

TEST(SelfChecksTest, Contended) {
  auto r = Even(1, 1);
  r.nic_valid = true;
  r.expected_nic_bytes = 100'000'000;
  r.nic_bytes = 105'000'000;
  EvaluateSelfChecks(r);
  EXPECT_FALSE(r.checks.contended);
  r.checks = {};
  r.nic_bytes = 150'000'000;
  EvaluateSelfChecks(r);
  EXPECT_TRUE(r.checks.contended);
}

SweepResult Sweep(std::vector<std::pair<uint32_t, double>> points) {
  SweepResult s;
  for (auto [n, gbit] : points) s.runs.push_back(Even(n, gbit / n));
  AnalyzeSweep(s);
  return s;
}

TEST(SweepTest, FindsSaturation) {
  auto s = Sweep({{1, 14}, {2, 28}, {4, 56}, {8, 112}, {16, 190}, {32, 196}});
  ASSERT_TRUE(s.saturating_streams.has_value());
  EXPECT_EQ(*s.saturating_streams, 16u);
  EXPECT_FALSE(s.stream_limited);
  EXPECT_NEAR(s.per_stream_ceiling_bytes_per_second, 14 * kGbit, 1);
}

TEST(SweepTest, StillGrowingIsStreamLimited) {
  auto s = Sweep({{1, 14}, {2, 28}, {4, 56}, {8, 112}});
  EXPECT_FALSE(s.saturating_streams.has_value());
  EXPECT_TRUE(s.stream_limited);
}

TEST(SweepTest, FlatFromOne) {
  auto s = Sweep({{1, 0.95}, {2, 0.96}, {4, 0.955}});
  ASSERT_TRUE(s.saturating_streams.has_value());
  EXPECT_EQ(*s.saturating_streams, 1u);
}

}  // namespace
}  // namespace fabric::probe
