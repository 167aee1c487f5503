#include "exporter/collectors/flow_tracker.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

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
  EXPECT_DOUBLE_EQ(second.counters->at({"198.18.9.2", "ssh", "send"}).bytes, 20'000'000);
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

// The receiving end's own evidence of a receiver that does not read: its receive queue at
// least half full at a dump (the rsync daemon on a capped CPU: 0.7-1.3 MB queued of a 1.0-1.4
// MB buffer). Its time counts as `not_reading` on the received flow; the flow stays received.
TEST(FlowTrackerTest, AReceiveQueueLeftFullIsTheReceivingApplication) {
  auto received = [](uint64_t cookie, uint64_t bytes, uint32_t queued) {
    auto s = Socket(cookie, "198.18.9.1", 873, "198.18.9.2", 40000 + cookie, 10, bytes);
    s.rcvbuf = 1 << 20;
    s.rmem_alloc = queued;
    return s;
  };
  FlowTracker tracker(FlowsSettings{});
  tracker.Update(Snap(0, {received(1, 0, 0), received(2, 0, 0)}));
  auto r = tracker.Update(Snap(1, {received(1, 40e6, 900 << 10), received(2, 40e6, 100 << 10)}));
  ASSERT_EQ(r.active.size(), 1u);
  EXPECT_EQ(r.active.begin()->first.limiter, "remote_sender");
  EXPECT_EQ(r.active.begin()->second.bulk_flows, 2);
  const auto& c = r.counters->at({"198.18.9.2", "rsync", "receive"});
  EXPECT_DOUBLE_EQ(c.bytes, 80e6);
  EXPECT_DOUBLE_EQ(c.limited_seconds.at("not_reading"), 1);    // The full queue's second.
  EXPECT_DOUBLE_EQ(c.limited_seconds.at("remote_sender"), 1);  // The one read promptly.
  EXPECT_FALSE(r.counters->contains({"198.18.9.2", "rsync", "send"}));
}

// The same receiver over the interval: the receiving rsync capped at 5% of a CPU ran 0.050 s and
// waited 0.948 s for its CPU in each second (/proc/PID/task/TID/schedstat, measured on the
// real_apps rsync daemon case), while its queue read anywhere from 1% to 100% of its buffer at
// a dump. Its forked generator holds the same socket and idles.
TEST(FlowTrackerTest, AReceiverThatNeverWaitedForDataIsTheReceivingApplication) {
  constexpr uint32_t kGenerator = 20, kReceiver = 21;
  std::vector<std::set<uint64_t>> asked;
  std::vector<uint32_t> read_pids;
  std::map<uint32_t, uint64_t> receiver_ns{{21, 0}, {22, 0}};  // The receiver's two threads.
  FlowTracker tracker(
      FlowsSettings{},
      [&](const std::set<uint64_t>& inodes) {
        asked.push_back(inodes);
        return std::map<uint64_t, SocketOwner>{{700, {"rsync", {kGenerator, kReceiver}}}};
      },
      [&](uint32_t pid) {
        read_pids.push_back(pid);
        return pid == kReceiver ? receiver_ns : std::map<uint32_t, uint64_t>{{20, 1'000'000}};
      });
  auto received = [](double t, uint32_t queued) {
    auto s = Socket(1, "198.18.9.1", 873, "198.18.9.2", 40001, 10, static_cast<uint64_t>(t * 40e6));
    s.rcvbuf = 1 << 20;
    s.rmem_alloc = queued;
    s.inode = 700;
    return s;
  };
  // A bulk sender beside it: its process is never looked up nor read.
  auto sent = [](double t) {
    auto s = Socket(2, "198.18.9.1", 40002, "198.18.9.2", 873, static_cast<uint64_t>(t * 40e6), 0,
                    static_cast<uint64_t>(t * 1e6));
    s.inode = 800;
    return s;
  };
  auto not_reading = [&](const FlowReport& r) {
    const auto& seconds = r.counters->at({"198.18.9.2", "rsync", "receive"}).limited_seconds;
    auto it = seconds.find("not_reading");
    return it == seconds.end() ? 0.0 : it->second;
  };
  tracker.Update(Snap(0, {received(0, 0), sent(0)}));
  EXPECT_TRUE(asked.empty());
  EXPECT_TRUE(read_pids.empty());  // Nothing received in bulk yet.

  // First bulk second: its owners are looked up and read; no run time to compare with yet.
  receiver_ns[22] = 950'000'000;
  auto r = tracker.Update(Snap(1, {received(1, 300 << 10), sent(1)}));
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0], (std::set<uint64_t>{700}));
  EXPECT_EQ(read_pids, (std::vector<uint32_t>{kGenerator, kReceiver}));
  EXPECT_EQ(not_reading(r), 0);

  // Runnable 95% of the next second, a third of its buffer queued at the dump: not reading.
  receiver_ns[22] += 950'000'000;
  receiver_ns[21] += 1'000'000;
  r = tracker.Update(Snap(2, {received(2, 300 << 10), sent(2)}));
  EXPECT_EQ(asked.size(), 1u);  // Once per socket.
  EXPECT_DOUBLE_EQ(not_reading(r), 1);
  EXPECT_EQ(r.active.count({"198.18.9.2", "rsync", "remote_sender"}), 1u);  // Still received.

  // Runnable half the time: it slept waiting for data, so the sender paced it.
  receiver_ns[22] += 500'000'000;
  r = tracker.Update(Snap(3, {received(3, 300 << 10), sent(3)}));
  EXPECT_DOUBLE_EQ(not_reading(r), 1);
  EXPECT_DOUBLE_EQ(
      r.counters->at({"198.18.9.2", "rsync", "receive"}).limited_seconds.at("remote_sender"), 2);

  // Runnable all the time with nothing queued: spinning, not behind.
  receiver_ns[22] += 1'000'000'000;
  r = tracker.Update(Snap(4, {received(4, 0), sent(4)}));
  EXPECT_DOUBLE_EQ(not_reading(r), 1);

  // A run time that went backwards (the pid reused by another process) judges nothing.
  receiver_ns[22] = 5;
  r = tracker.Update(Snap(5, {received(5, 300 << 10), sent(5)}));
  EXPECT_DOUBLE_EQ(not_reading(r), 1);
  for (uint32_t pid : read_pids) EXPECT_NE(pid, 0u);
  EXPECT_EQ(read_pids.size(), 10u);  // The two owners at each of the five bulk dumps.
}

// A kernel socket (nfsd's, an in-kernel client's) has no process: looked up once, not at
// every dump.
TEST(FlowTrackerTest, AnOwnerNotFoundIsNotLookedUpAgain) {
  int lookups = 0;
  FlowTracker tracker(FlowsSettings{}, [&](const std::set<uint64_t>&) {
    ++lookups;
    return std::map<uint64_t, SocketOwner>{};
  });
  auto nfs = [](double t) {
    auto s = Socket(1, "198.18.9.1", 2049, "198.18.9.2", 700, 10, static_cast<uint64_t>(t * 40e6));
    s.inode = 900;
    return s;
  };
  for (int t = 0; t < 4; ++t) tracker.Update(Snap(t, {nfs(t)}));
  EXPECT_EQ(lookups, 1);
}

TEST(ReceiverNeverWaitedTest, RunnableAndDataQueued) {
  EXPECT_TRUE(ReceiverNeverWaited(0.9, 1));
  EXPECT_TRUE(ReceiverNeverWaited(1.02, 1 << 20));  // Jiffy-granular clocks overshoot.
  EXPECT_FALSE(ReceiverNeverWaited(0.89, 1 << 20));
  EXPECT_FALSE(ReceiverNeverWaited(1, 0));
  EXPECT_FALSE(ReceiverNeverWaited(1, std::nullopt));
}

TEST(ReceiverNotReadingTest, HalfTheBufferQueued) {
  EXPECT_TRUE(ReceiverNotReading(512 << 10, 1 << 20));
  EXPECT_FALSE(ReceiverNotReading((512 << 10) - 1, 1 << 20));
  EXPECT_FALSE(ReceiverNotReading(std::nullopt, 1 << 20));  // Not reported.
  EXPECT_FALSE(ReceiverNotReading(512 << 10, std::nullopt));
  EXPECT_FALSE(ReceiverNotReading(0, 0));
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
  tracker.Update(Snap(0, {Socket(1, "198.18.9.1", 40000, "198.18.9.2", 22, 5e9, 0),
                          Socket(2, "198.18.9.1", 40001, "198.18.9.2", 22, 9e9, 0)}));
  EXPECT_EQ(tracker.tracked_sockets(), 2u);
  // Socket 2 closed; socket 1's counter went backwards (a recycled cookie).
  auto r = tracker.Update(Snap(1, {Socket(1, "198.18.9.1", 40000, "198.18.9.2", 22, 0, 0)}));
  EXPECT_EQ(tracker.tracked_sockets(), 1u);
  EXPECT_TRUE(r.active.empty());
  // From the new baseline on, socket 1 counts again.
  r = tracker.Update(Snap(2, {Socket(1, "198.18.9.1", 40000, "198.18.9.2", 22, 4e6, 0)}));
  EXPECT_DOUBLE_EQ(r.counters->at({"198.18.9.2", "ssh", "send"}).bytes, 4e6);
}

// What a socket moved before the exporter's first dump is not counted; a
// socket that appears later opened since the last dump, so tcpi_bytes_acked
// counts whole, from its first byte (the kernel's totals include the first
// interval).
TEST(FlowTrackerTest, ANewConnectionCountsFromItsFirstByte) {
  FlowTracker tracker(FlowsSettings{});
  auto first = tracker.Update(Snap(10, {Socket(1, "198.18.9.1", 40000, "198.18.9.2", 22, 7e9, 0)}));
  EXPECT_TRUE(first.active.empty());
  EXPECT_TRUE(first.counters->empty());
  auto r = tracker.Update(Snap(12, {Socket(1, "198.18.9.1", 40000, "198.18.9.2", 22, 7.01e9, 0),
                                    Socket(2, "198.18.9.1", 40001, "198.18.9.2", 22, 30e6, 0)}));
  const auto& agg = r.active.at({"198.18.9.2", "ssh", "application"});
  EXPECT_EQ(agg.bulk_flows, 2);
  EXPECT_DOUBLE_EQ(agg.goodput, 5e6 + 15e6);
  EXPECT_DOUBLE_EQ(r.counters->at({"198.18.9.2", "ssh", "send"}).bytes, 10e6 + 30e6);
}

// The sock_diag destroy messages (FlowSnapshot::closed) count what a connection moved after the
// last dump that saw it, and all of one that opened and closed between two dumps; one seen in
// this very dump and destroyed after it is counted once. An interactive session that closes
// stays below the bulk threshold; before the first look, a destroyed socket is a baseline.
TEST(FlowTrackerTest, DestroyedSocketsCountTheirLastBytes) {
  auto ssh = [](uint64_t cookie, double acked) {
    return Socket(cookie, "198.18.9.1", 40000 + cookie, "198.18.9.2", 22, acked, 0);
  };
  FlowTracker tracker(FlowsSettings{});
  FlowSnapshot first = Snap(0, {});
  first.closed = {ssh(9, 5e9)};
  EXPECT_TRUE(tracker.Update(first).counters->empty());
  tracker.Update(Snap(1, {ssh(1, 100e6)}));  // Opened since the first dump: 100 MB.
  FlowSnapshot later = Snap(2, {ssh(4, 10e6)});
  later.closed = {ssh(1, 150e6),  // Seen at 1: its last 50 MB.
                  ssh(2, 80e6),   // Opened and closed between the dumps.
                  ssh(3, 1000),   // Interactive.
                  ssh(4, 12e6)};  // In this dump (10 MB) and destroyed after it: 2 MB more.
  auto r = tracker.Update(later);
  EXPECT_DOUBLE_EQ(r.counters->at({"198.18.9.2", "ssh", "send"}).bytes,
                   100e6 + 50e6 + 80e6 + 10e6 + 2e6);
  // Destroyed: gone from the next dump's baselines (a reused cookie starts from zero).
  r = tracker.Update(Snap(3, {ssh(4, 1e6)}));
  EXPECT_DOUBLE_EQ(r.counters->at({"198.18.9.2", "ssh", "send"}).bytes,
                   100e6 + 50e6 + 80e6 + 10e6 + 2e6 + 1e6);
}

// scp or rsync per file: each connection lives less than a scrape interval.
// Every one is counted whole, and the transfer is one series all along.
TEST(FlowTrackerTest, APerFileLoopIsOneTransferOverTime) {
  FlowTracker tracker(FlowsSettings{});
  tracker.Update(Snap(0, {}));
  for (int file = 1; file <= 5; ++file) {
    auto r = tracker.Update(
        Snap(file * 5, {Socket(file, "198.18.9.1", 40000 + file, "198.18.9.2", 22, 2e9, 0, 5e6)}));
    ASSERT_EQ(r.active.size(), 1u) << file;
    EXPECT_DOUBLE_EQ(r.active.begin()->second.goodput, 2e9 / 5) << file;
    ASSERT_EQ(r.counters->size(), 1u) << file;
    EXPECT_DOUBLE_EQ(r.counters->at({"198.18.9.2", "ssh", "send"}).bytes, file * 2e9) << file;
  }
}

TEST(FlowTrackerTest, CountersSplitSentFromReceived) {
  FlowTracker tracker(FlowsSettings{});
  tracker.Update(Snap(0, {}));
  auto r = tracker.Update(Snap(1, {Socket(1, "198.18.9.1", 40000, "198.18.9.2", 873, 5e6, 0),
                                   Socket(2, "198.18.9.1", 873, "198.18.9.2", 40001, 0, 7e6)}));
  EXPECT_DOUBLE_EQ(r.counters->at({"198.18.9.2", "rsync", "send"}).bytes, 5e6);
  EXPECT_DOUBLE_EQ(r.counters->at({"198.18.9.2", "rsync", "receive"}).bytes, 7e6);
  EXPECT_DOUBLE_EQ(
      r.counters->at({"198.18.9.2", "rsync", "receive"}).limited_seconds.at("remote_sender"), 1);
}

// The limiter alternates between intervals (rsync: network, then its own
// protocol): the time counters carry both, the bytes stay one series.
TEST(FlowTrackerTest, LimitedSecondsAccumulateAcrossALimiterThatAlternates) {
  FlowTracker tracker(FlowsSettings{});
  tracker.Update(Snap(0, {Socket(1, "198.18.9.1", 40000, "198.18.9.2", 873, 0, 0)}));
  // 10 s busy (network), then 10 s of which 2 busy (application).
  auto r =
      tracker.Update(Snap(10, {Socket(1, "198.18.9.1", 40000, "198.18.9.2", 873, 100e6, 0, 10e6)}));
  EXPECT_EQ(r.active.begin()->first.limiter, "network");
  r = tracker.Update(Snap(20, {Socket(1, "198.18.9.1", 40000, "198.18.9.2", 873, 200e6, 0, 12e6)}));
  EXPECT_EQ(r.active.begin()->first.limiter, "application");
  const auto& c = r.counters->at({"198.18.9.2", "rsync", "send"});
  EXPECT_DOUBLE_EQ(c.bytes, 200e6);
  EXPECT_DOUBLE_EQ(c.limited_seconds.at("network"), 12);
  EXPECT_DOUBLE_EQ(c.limited_seconds.at("application"), 8);
  EXPECT_FALSE(c.limited_seconds.contains("receiver_window"));
}

// Seen from the sender, both are rwnd-limited. A receiver whose buffer is
// small never opens its window wide: the buffer is the cap. A receiver that
// opened a wide window and now keeps it closed has a large buffer it does not
// drain: its process, not the buffer, is the limit.
TEST(FlowTrackerTest, AReceiverThatStopsReadingIsTheApplication) {
  auto rwnd_limited = [](uint64_t cookie, uint64_t acked, uint64_t busy, uint32_t window) {
    auto s = Socket(cookie, "198.18.9.1", 40000 + cookie, "198.18.9.2", 873, acked, 0, busy,
                    busy * 9 / 10);
    s.info->snd_mss = 8948;
    s.info->snd_wnd = window;
    return s;
  };
  FlowTracker tracker(FlowsSettings{});
  tracker.Update(Snap(0, {rwnd_limited(1, 0, 0, 4 << 20), rwnd_limited(2, 0, 0, 8192)}));
  auto r =
      tracker.Update(Snap(1, {rwnd_limited(1, 50e6, 1e6, 0), rwnd_limited(2, 50e6, 1e6, 4096)}));
  EXPECT_EQ(r.active.count({"198.18.9.2", "rsync", "application"}), 1u);
  EXPECT_EQ(r.active.count({"198.18.9.2", "rsync", "receiver_window"}), 1u);
  const auto& c = r.counters->at({"198.18.9.2", "rsync", "send"});
  EXPECT_DOUBLE_EQ(c.limited_seconds.at("application"), 0.9);
  EXPECT_DOUBLE_EQ(c.limited_seconds.at("receiver_window"), 0.9);
}

// One dump sees a CPU-bound receiver's window open or shut by chance. Over the
// interval: a window that opened to 4 MiB carries 10 GB/s at 400 us, and a
// flow held by it 90% of the time moved 50 MB/s, so its receiver left it
// closed (the application, even at a dump that finds it open). A window that
// a small buffer bounds sits at its 512 KiB peak and the flow moves about
// window / RTT (1.3 GB/s): the buffer is the cap.
TEST(FlowTrackerTest, AWindowFarWiderThanItsFlowIsTheReceivingApplication) {
  auto rwnd_limited = [](uint64_t cookie, uint64_t acked, uint64_t busy, uint32_t window) {
    auto s = Socket(cookie, "198.18.9.1", 40000 + cookie, "198.18.9.2", 873, acked, 0, busy,
                    busy * 9 / 10);
    s.info->snd_mss = 8948;
    s.info->snd_wnd = window;
    return s;
  };
  FlowTracker tracker(FlowsSettings{});
  tracker.Update(Snap(0, {rwnd_limited(1, 0, 0, 4 << 20), rwnd_limited(2, 0, 0, 512 << 10)}));
  auto r = tracker.Update(
      Snap(1, {rwnd_limited(1, 50e6, 1e6, 2 << 20), rwnd_limited(2, 1.2e9, 1e6, 512 << 10)}));
  EXPECT_EQ(r.active.count({"198.18.9.2", "rsync", "application"}), 1u);
  EXPECT_EQ(r.active.count({"198.18.9.2", "rsync", "receiver_window"}), 1u);
  const auto& c = r.counters->at({"198.18.9.2", "rsync", "send"});
  EXPECT_DOUBLE_EQ(c.limited_seconds.at("application"), 0.9);
  EXPECT_DOUBLE_EQ(c.limited_seconds.at("receiver_window"), 0.9);
}

TEST(WindowOutgrewFlowTest, PeakWindowOverRttAgainstTheBusyRate) {
  // 4 MiB / 400 us = 10.5 GB/s: a flow under half of it while busy outgrew.
  EXPECT_TRUE(WindowOutgrewFlow(4 << 20, 400e-6, 5e9, 1));
  EXPECT_FALSE(WindowOutgrewFlow(4 << 20, 400e-6, 6e9, 1));
  EXPECT_FALSE(WindowOutgrewFlow(kOpenWindowBytes - 1, 400e-6, 1, 1));  // A small buffer.
  EXPECT_FALSE(WindowOutgrewFlow(4 << 20, 0, 1, 1));                    // No RTT yet.
  EXPECT_FALSE(WindowOutgrewFlow(4 << 20, 400e-6, 1, 0));               // Never busy.
}

TEST(PeerStoppedReadingTest, WideOnceAndClosedNow) {
  EXPECT_TRUE(PeerStoppedReading(0, 4 << 20, 8948));
  EXPECT_TRUE(PeerStoppedReading(4 * 8948 - 1, kOpenWindowBytes, 8948));
  EXPECT_FALSE(PeerStoppedReading(4 * 8948, kOpenWindowBytes, 8948));
  EXPECT_FALSE(PeerStoppedReading(0, kOpenWindowBytes - 1, 8948));
  EXPECT_FALSE(PeerStoppedReading(0, 4 << 20, 0));
}

TEST(ApplicationOfProcessTest, CopyToolsAndNamedTransports) {
  EXPECT_EQ(ApplicationOfProcess("socat"), "socat");
  EXPECT_EQ(ApplicationOfProcess("nc"), "netcat");
  EXPECT_EQ(ApplicationOfProcess("nc.openbsd"), "netcat");
  EXPECT_EQ(ApplicationOfProcess("ncat"), "netcat");
  EXPECT_EQ(ApplicationOfProcess("mbuffer"), "mbuffer");
  EXPECT_EQ(ApplicationOfProcess("rsync"), "rsync");
  EXPECT_EQ(ApplicationOfProcess("sshd"), "ssh");
  EXPECT_EQ(ApplicationOfProcess("fabric_probe"), std::nullopt);
  EXPECT_EQ(ApplicationOfProcess("python3"), std::nullopt);
  EXPECT_EQ(ApplicationOfProcess(""), std::nullopt);
}

// A flow no port names is named by the process holding its socket, looked up
// once per socket and only while it is bulk.
TEST(FlowTrackerTest, TheOwnerProcessNamesAFlowNoPortNames) {
  std::vector<std::set<uint64_t>> asked;
  FlowTracker tracker(FlowsSettings{}, [&](const std::set<uint64_t>& inodes) {
    asked.push_back(inodes);
    return std::map<uint64_t, SocketOwner>{{501, {"socat", {11}}}, {503, {"python3", {13}}}};
  });
  auto pipeline = [](uint64_t cookie, uint16_t port, uint64_t acked, uint32_t inode) {
    // Busy all the time it sends, 50 MB/s: network-limited.
    auto s = Socket(cookie, "198.18.9.1", 40000 + cookie, "198.18.9.2", port, acked, 0, acked / 50);
    s.inode = inode;
    return s;
  };
  tracker.Update(Snap(0, {pipeline(1, 5000, 0, 501), pipeline(2, 22, 0, 502),
                          pipeline(3, 6000, 0, 503), pipeline(4, 7000, 0, 504)}));
  EXPECT_TRUE(asked.empty());  // Nothing bulk yet.
  auto r = tracker.Update(Snap(1, {pipeline(1, 5000, 50e6, 501), pipeline(2, 22, 50e6, 502),
                                   pipeline(3, 6000, 50e6, 503), pipeline(4, 7000, 10, 504)}));
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0], (std::set<uint64_t>{501, 503}));
  EXPECT_EQ(r.active.count({"198.18.9.2", "socat", "network"}), 1u);
  EXPECT_EQ(r.active.count({"198.18.9.2", "ssh", "network"}), 1u);
  EXPECT_EQ(r.active.count({"198.18.9.2", "other", "network"}), 1u);
  r = tracker.Update(Snap(2, {pipeline(1, 5000, 100e6, 501)}));
  EXPECT_EQ(asked.size(), 1u);  // Known from the last lookup.
  EXPECT_EQ(r.active.count({"198.18.9.2", "socat", "network"}), 1u);
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
