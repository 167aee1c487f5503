#include "exporter/collectors/flow_tracker.h"

#include <gtest/gtest.h>

namespace fabric {
namespace {

TEST(ClassifyApplicationTest, WellKnownPortsEitherSide) {
  const auto apps = DefaultApplications();
  EXPECT_EQ(ClassifyApplication(apps, 40000, 22), "ssh");
  EXPECT_EQ(ClassifyApplication(apps, 22, 51000), "ssh");
  EXPECT_EQ(ClassifyApplication(apps, 40000, 873), "rsync");
  EXPECT_EQ(ClassifyApplication(apps, 40000, 2049), "nfs");
  EXPECT_EQ(ClassifyApplication(apps, 40000, 445), "smb");
  EXPECT_EQ(ClassifyApplication(apps, 40000, 3260), "iscsi");
  EXPECT_EQ(ClassifyApplication(apps, 40000, 5201), "iperf3");
  EXPECT_EQ(ClassifyApplication(apps, 40000, 9878), "fabric_probe");
  EXPECT_EQ(ClassifyApplication(apps, 40000, 6789), "ceph");
  EXPECT_EQ(ClassifyApplication(apps, 6800, 40000), "ceph");
  EXPECT_EQ(ClassifyApplication(apps, 7300, 40000), "ceph");
  EXPECT_EQ(ClassifyApplication(apps, 7301, 40000), "other");
  EXPECT_EQ(ClassifyApplication(apps, 40000, 40001), "other");
  // Both ports known: the lower (the server's) wins.
  EXPECT_EQ(ClassifyApplication(apps, 6800, 22), "ssh");
}

TEST(ClassifyApplicationTest, ConfiguredEntriesComeFirst) {
  auto apps = DefaultApplications();
  apps.insert(apps.begin(), {"backup", {{22, 22}, {10000, 10010}}});
  EXPECT_EQ(ClassifyApplication(apps, 40000, 22), "backup");
  EXPECT_EQ(ClassifyApplication(apps, 40000, 10005), "backup");
}

TEST(ClassifyLimiterTest, LongestHeldLimiterWins) {
  struct Case {
    LimiterTimes t;
    Limiter want;
  };
  const Case cases[] = {
      {{10e6, 10e6, 9e6, 0}, Limiter::kReceiverWindow},
      {{10e6, 10e6, 0, 8e6}, Limiter::kSendBuffer},
      {{10e6, 10e6, 1e6, 1e6}, Limiter::kNetwork},
      {{10e6, 3e6, 0, 0}, Limiter::kApplication},
      {{10e6, 6e6, 0, 0}, Limiter::kNetwork},
      {{10e6, 4e6, 3e6, 0}, Limiter::kApplication},
      // Jiffy-granular busy time a little past the measured interval.
      {{10e6, 10.004e6, 0, 0}, Limiter::kNetwork},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(ClassifyLimiter(c.t), c.want) << c.t.interval_us << " " << c.t.busy_us << " "
                                            << c.t.rwnd_limited_us << " " << c.t.sndbuf_limited_us;
  }
}

SocketRecord Socket(uint64_t cookie, const char* local, uint16_t lport, const char* remote,
                    uint16_t rport, uint64_t acked, uint64_t received, uint64_t busy = 0,
                    uint64_t rwnd = 0, uint64_t sndbuf = 0) {
  SocketRecord s;
  s.cookie = cookie;
  s.local = *ParseIpAddress(local);
  s.local_port = lport;
  s.remote = *ParseIpAddress(remote);
  s.remote_port = rport;
  s.state = 1;
  TcpInfo info;
  info.bytes_acked = acked;
  info.bytes_received = received;
  info.busy_us = busy;
  info.rwnd_limited_us = rwnd;
  info.sndbuf_limited_us = sndbuf;
  info.rtt_us = 400;
  info.snd_cwnd = 10;
  info.snd_mss = 1000;
  s.info = info;
  return s;
}

FlowSnapshot Snap(double t, std::vector<SocketRecord> sockets) {
  FlowSnapshot s;
  s.monotonic_seconds = t;
  s.addresses = {{1, "lo", *ParseIpAddress("127.0.0.1")},
                 {2, "mgmt0", *ParseIpAddress("10.0.0.5")},
                 {3, "fab0", *ParseIpAddress("198.18.9.1")}};
  s.sockets = std::move(sockets);
  return s;
}

TEST(FlowTrackerTest, FirstSightIsBaselineThenGoodputFromDeltas) {
  FlowTracker tracker(FlowsSettings{});
  auto first = tracker.Update(Snap(100, {Socket(1, "198.18.9.1", 40000, "198.18.9.2", 22, 0, 0)}));
  EXPECT_EQ(first.sockets, 1u);
  EXPECT_TRUE(first.active.empty());
  auto second = tracker.Update(
      Snap(102, {Socket(1, "198.18.9.1", 40000, "198.18.9.2", 22, 20'000'000, 0, 500'000)}));
  ASSERT_EQ(second.active.size(), 1u);
  const auto& [key, agg] = *second.active.begin();
  EXPECT_EQ(key.peer, "198.18.9.2");
  EXPECT_EQ(key.application, "ssh");
  EXPECT_EQ(key.limiter, "application");
  EXPECT_EQ(agg.bulk_flows, 1);
  EXPECT_DOUBLE_EQ(agg.goodput, 10'000'000);
  EXPECT_DOUBLE_EQ(agg.best.rtt_seconds, 400e-6);
  EXPECT_DOUBLE_EQ(*agg.best.congestion_window_bytes, 10'000);
  EXPECT_DOUBLE_EQ(second.counters->at(key).bytes, 20'000'000);
}

TEST(FlowTrackerTest, AggregatesByPeerApplicationLimiter) {
  FlowTracker tracker(FlowsSettings{});
  tracker.Update(Snap(0, {Socket(1, "198.18.9.1", 40001, "198.18.9.2", 5201, 0, 0),
                          Socket(2, "198.18.9.1", 40002, "198.18.9.2", 5201, 0, 0),
                          Socket(3, "198.18.9.1", 40003, "198.18.9.2", 5201, 0, 0)}));
  auto r = tracker.Update(
      Snap(1, {Socket(1, "198.18.9.1", 40001, "198.18.9.2", 5201, 30e6, 0, 1e6),
               Socket(2, "198.18.9.1", 40002, "198.18.9.2", 5201, 50e6, 0, 1e6),
               Socket(3, "198.18.9.1", 40003, "198.18.9.2", 5201, 20e6, 0, 1e6, 9e5)}));
  ASSERT_EQ(r.active.size(), 2u);
  const auto& network = r.active.at({"198.18.9.2", "iperf3", "network"});
  EXPECT_EQ(network.bulk_flows, 2);
  EXPECT_DOUBLE_EQ(network.goodput, 80e6);
  EXPECT_DOUBLE_EQ(network.best.goodput, 50e6);
  EXPECT_EQ(r.active.at({"198.18.9.2", "iperf3", "receiver_window"}).bulk_flows, 1);
}

TEST(FlowTrackerTest, ReceivingFlowsAreDecidedByTheRemoteSender) {
  FlowTracker tracker(FlowsSettings{});
  tracker.Update(Snap(0, {Socket(1, "198.18.9.1", 873, "198.18.9.2", 40000, 0, 0)}));
  auto r = tracker.Update(Snap(1, {Socket(1, "198.18.9.1", 873, "198.18.9.2", 40000, 10, 5e6)}));
  ASSERT_EQ(r.active.size(), 1u);
  EXPECT_EQ(r.active.begin()->first.limiter, "remote_sender");
  EXPECT_EQ(r.active.begin()->first.application, "rsync");
}

TEST(FlowTrackerTest, MissingChronographsGiveUnknown) {
  FlowTracker tracker(FlowsSettings{});
  auto a = Socket(1, "198.18.9.1", 40000, "198.18.9.2", 3260, 0, 0);
  a.info->busy_us.reset();
  tracker.Update(Snap(0, {a}));
  a.info->bytes_acked = 5e6;
  auto r = tracker.Update(Snap(1, {a}));
  ASSERT_EQ(r.active.size(), 1u);
  EXPECT_EQ(r.active.begin()->first.limiter, "unknown");
}

TEST(FlowTrackerTest, BelowThresholdIsNotBulk) {
  FlowsSettings settings;
  settings.bulk_threshold_bytes_per_second = 1e6;
  FlowTracker tracker(settings);
  tracker.Update(Snap(0, {Socket(1, "198.18.9.1", 40000, "198.18.9.2", 22, 0, 0)}));
  auto r = tracker.Update(Snap(2, {Socket(1, "198.18.9.1", 40000, "198.18.9.2", 22, 1.9e6, 0)}));
  EXPECT_TRUE(r.active.empty());
  EXPECT_TRUE(r.counters->empty());
}

TEST(FlowTrackerTest, ClosedSocketsAreForgottenAndCounterResetsRebaseline) {
  FlowTracker tracker(FlowsSettings{});
  tracker.Update(Snap(0, {Socket(1, "198.18.9.1", 40000, "198.18.9.2", 22, 0, 0),
                          Socket(2, "198.18.9.1", 40001, "198.18.9.2", 22, 9e9, 0)}));
  EXPECT_EQ(tracker.tracked_sockets(), 2u);
  // Socket 2 closed; socket 1's counter went backwards (a recycled cookie).
  auto r = tracker.Update(Snap(1, {Socket(1, "198.18.9.1", 40000, "198.18.9.2", 22, 0, 0)}));
  EXPECT_EQ(tracker.tracked_sockets(), 1u);
  EXPECT_TRUE(r.active.empty());
  // A socket reappearing after being forgotten starts from a new baseline.
  r = tracker.Update(Snap(2, {Socket(2, "198.18.9.1", 40001, "198.18.9.2", 22, 9.5e9, 0)}));
  EXPECT_TRUE(r.active.empty());
}

TEST(FlowTrackerTest, DefaultObservesEveryNonLoopbackAddress) {
  FlowTracker tracker(FlowsSettings{});
  auto sockets = std::vector<SocketRecord>{
      Socket(1, "127.0.0.1", 40000, "127.0.0.1", 22, 0, 0),
      Socket(2, "10.0.0.5", 40000, "10.0.0.9", 22, 0, 0),
      Socket(3, "198.18.9.1", 40000, "198.18.9.2", 22, 0, 0),
  };
  EXPECT_EQ(tracker.Update(Snap(0, sockets)).sockets, 2u);
}

TEST(FlowTrackerTest, InterfacesAndPrefixesRestrictTheFabric) {
  auto sockets = std::vector<SocketRecord>{
      Socket(1, "127.0.0.1", 40000, "127.0.0.1", 22, 0, 0),
      Socket(2, "10.0.0.5", 40000, "10.0.0.9", 22, 0, 0),
      Socket(3, "198.18.9.1", 40000, "198.18.9.2", 22, 0, 0),
  };
  FlowsSettings by_interface;
  by_interface.interfaces = {"fab0"};
  EXPECT_EQ(FlowTracker(by_interface).Update(Snap(0, sockets)).sockets, 1u);
  FlowsSettings by_prefix;
  by_prefix.local_prefixes = {*ParseIpPrefix("10.0.0.0/8"), *ParseIpPrefix("127.0.0.0/8")};
  EXPECT_EQ(FlowTracker(by_prefix).Update(Snap(0, sockets)).sockets, 2u);
}

TEST(FlowTrackerTest, SeriesStayBoundedWithManyPeers) {
  FlowsSettings settings;
  settings.max_series = 10;
  FlowTracker tracker(settings);
  std::vector<SocketRecord> before, after;
  for (int i = 0; i < 1000; ++i) {
    std::string peer = "198.18." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 1);
    before.push_back(Socket(i + 1, "198.18.9.1", 40000, peer.c_str(), 5201, 0, 0));
    after.push_back(
        Socket(i + 1, "198.18.9.1", 40000, peer.c_str(), 5201, 2e6 + i * 1000.0, 0, 1e6));
  }
  tracker.Update(Snap(0, before));
  auto r = tracker.Update(Snap(1, after));
  EXPECT_EQ(r.active.size(), 11u);  // Ten peers and "other".
  const auto& other = r.active.at({"other", "iperf3", "network"});
  EXPECT_EQ(other.bulk_flows, 990);
  // The ten kept are the fastest.
  EXPECT_EQ(r.active.count({"198.18.3.250", "iperf3", "network"}), 1u);
  EXPECT_LE(r.counters->size(), 11u);
}

TEST(FlowTrackerTest, IdleCounterSeriesExpire) {
  FlowsSettings settings;
  settings.counter_expiry_seconds = 60;
  FlowTracker tracker(settings);
  tracker.Update(Snap(0, {Socket(1, "198.18.9.1", 40000, "198.18.9.2", 22, 0, 0)}));
  auto r = tracker.Update(Snap(1, {Socket(1, "198.18.9.1", 40000, "198.18.9.2", 22, 5e6, 0)}));
  EXPECT_EQ(r.counters->size(), 1u);
  r = tracker.Update(Snap(30, {}));
  EXPECT_EQ(r.counters->size(), 1u);
  r = tracker.Update(Snap(62, {}));
  EXPECT_TRUE(r.counters->empty());
}

}  // namespace
}  // namespace fabric
