#include "exporter/scheduled_probes/probe_detail_set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "exporter/metrics/fleet_info.h"

namespace fabric {
namespace {

constexpr double kRound = 600;
constexpr double kPathInterval = 60;
constexpr double kLine = 100;
constexpr double kStart = 1.8e9;  // A round boundary (1.8e9 / 600 = 3e6).

struct TestFleet {
  std::vector<std::string> names;
  std::vector<std::string> racks;
  std::shared_ptr<const TopologyPlan> plan;
};

// `n` nodes, member i in rack i % racks ("" for every member when racks is 0).
TestFleet MakeFleet(size_t n, size_t racks) {
  TestFleet f;
  std::vector<PlanMember> members;
  for (size_t i = 0; i < n; ++i) {
    f.names.push_back("node-" + std::to_string(100 + i));
    f.racks.push_back(racks == 0 ? "" : "r" + std::to_string(i % racks));
    members.push_back({f.racks.back(), ""});
  }
  f.plan = std::make_shared<const TopologyPlan>(members);
  return f;
}

std::unique_ptr<ProbeDetailSet> MakeSet(const TestFleet& f, size_t self, bool bisect = true) {
  return std::make_unique<ProbeDetailSet>(
      f.names, f.racks, self, f.plan, kRound, kPathInterval,
      bisect ? std::make_unique<Bisection>(f.racks, self, kLine) : nullptr);
}

ProbeKey Key(probe::Rung rung, const std::string& target) {
  return {rung, target,
          rung == probe::Rung::kPath ? probe::Direction::kNone : probe::Direction::kSend};
}

TEST(ProbeDetailSetTest, ASmallFleetPublishesEveryPeer) {
  for (size_t n : {size_t{1}, size_t{3}, ProbeDetailSet::kAllDetailMaxPeers + 1}) {
    TestFleet f = MakeFleet(n, 2);
    auto set = MakeSet(f, 0);
    EXPECT_TRUE(set->all_detail()) << n;
    // No detail filter: the collector publishes every record per pair.
    EXPECT_FALSE(static_cast<bool>(set->Policy(kStart).detail)) << n;
    EXPECT_EQ(set->DetailPeers(kStart).size(), n - 1);
    auto targets = set->PathTargets(kStart);
    EXPECT_EQ(targets.size(), n - 1) << "every path every interval";
    EXPECT_EQ(std::count(targets.begin(), targets.end(), 0u), 0);
  }
}

TEST(ProbeDetailSetTest, AboveTheBoundOnlyRecentPlanPeersAreDetail) {
  TestFleet f = MakeFleet(ProbeDetailSet::kAllDetailMaxPeers + 2, 3);
  auto set = MakeSet(f, 4);
  EXPECT_FALSE(set->all_detail());
  for (double now = kStart; now < kStart + 20 * kRound; now += kRound) {
    const auto round = static_cast<uint64_t>(now / kRound);
    std::set<size_t> expected;
    for (uint64_t r = round - 2; r <= round; ++r) {
      if (auto p = f.plan->Round(4, r); p && p->initiator) expected.insert(p->peer);
    }
    EXPECT_EQ(set->DetailPeers(now), expected) << "round " << round;
    ProbeDetailPolicy policy = set->Policy(now);
    ASSERT_TRUE(static_cast<bool>(policy.detail));
    for (size_t peer = 0; peer < f.names.size(); ++peer) {
      EXPECT_EQ(policy.detail(Key(probe::Rung::kTcpMulti, f.names[peer])),
                expected.count(peer) > 0);
    }
    EXPECT_EQ(policy.rack_of(f.names[5]), "r2");
    EXPECT_EQ(policy.rack_of("not-in-the-fleet"), "");
  }
}

TEST(ProbeDetailSetTest, PathRecordsAreDetailForThePeersTheLastRunChecked) {
  TestFleet f = MakeFleet(200, 10);
  auto set = MakeSet(f, 0);
  const double now = kStart + 7 * kPathInterval;
  const auto targets = set->PathTargets(now);
  const std::set<size_t> checked(targets.begin(), targets.end());
  // Bounded by the detail peers and a third of the racks, not the fleet.
  EXPECT_LE(checked.size(), set->DetailPeers(now).size() + 4);
  for (size_t peer : set->DetailPeers(now)) EXPECT_EQ(checked.count(peer), 1u);
  ProbeDetailPolicy policy = set->Policy(now);
  size_t detailed = 0;
  for (size_t peer = 1; peer < f.names.size(); ++peer) {
    const bool detail = policy.detail(Key(probe::Rung::kPath, f.names[peer]));
    EXPECT_EQ(detail, checked.count(peer) > 0) << peer;
    detailed += detail ? 1 : 0;
  }
  EXPECT_EQ(detailed, checked.size());
}

TEST(ProbeDetailSetTest, AFailedPathCheckKeepsThePeerInDetailUntilItChecksOut) {
  TestFleet f = MakeFleet(100, 5);
  auto set = MakeSet(f, 0);
  const double now = kStart;
  size_t peer = 1;
  while (set->DetailPeers(now).count(peer) > 0) ++peer;  // Not a plan peer.
  set->PathChecked(peer, true);
  EXPECT_EQ(set->DetailPeers(now).count(peer), 1u);
  EXPECT_TRUE(set->Policy(now).detail(Key(probe::Rung::kTcpMulti, f.names[peer])));
  // Flagged peers are checked in every run.
  auto targets = set->PathTargets(now + kPathInterval);
  EXPECT_EQ(std::count(targets.begin(), targets.end(), peer), 1);
  set->PathChecked(peer, false);
  EXPECT_EQ(set->DetailPeers(now).count(peer), 0u);
}

TEST(ProbeDetailSetTest, ALowResultIsBisectedAndTheBlamePublished) {
  TestFleet f = MakeFleet(40, 4);  // Rack r1: members 1, 5, 9, ...
  auto set = MakeSet(f, 0);
  ASSERT_TRUE(set->bisecting());
  double now = kStart + 10;
  set->ObservePlan(5, {95}, now);  // Known good in r1.
  set->ObservePlan(1, {20}, now);  // Low: a case against node 1.
  auto peer = set->RetestPeer(now + 200);
  ASSERT_TRUE(peer.has_value());
  EXPECT_EQ(*peer, 5u);
  // Asked again before its run (the peer was busy): the same peer, not a new ask.
  EXPECT_EQ(set->RetestPeer(now + 210), peer);
  // Open case: the target and its retest peer have per-pair series.
  EXPECT_EQ(set->DetailPeers(now + 210).count(1), 1u);
  EXPECT_EQ(set->DetailPeers(now + 210).count(5), 1u);
  set->ObserveRetest(5, {94}, now + 220);
  auto suspects = set->Suspects(now + 220);
  ASSERT_EQ(suspects.count(1), 1u);
  EXPECT_EQ(suspects[1], Suspect::kPeer);
  ProbeDetailPolicy policy = set->Policy(now + 220);
  ASSERT_TRUE(static_cast<bool>(policy.suspects));
  EXPECT_EQ(policy.suspects(), (std::map<std::string, std::string>{{f.names[1], "peer"}}));
  EXPECT_TRUE(policy.detail(Key(probe::Rung::kTcpMulti, f.names[1])));
  EXPECT_FALSE(set->RetestPeer(now + 400).has_value());  // Concluded: nothing pending.
}

TEST(ProbeDetailSetTest, EveryPeerFailingBlamesThisNode) {
  // What an exporter whose peers are all unreachable concludes (a failure is
  // low at any line rate, so this holds without a known line rate too).
  TestFleet f = MakeFleet(40, 4);
  auto set = std::make_unique<ProbeDetailSet>(f.names, f.racks, 0, f.plan, kRound, kPathInterval,
                                              std::make_unique<Bisection>(f.racks, 0, 0));
  double now = kStart;
  set->ObservePlan(1, {0}, now);
  for (int i = 0; i < 2; ++i) {
    now += 200;
    auto peer = set->RetestPeer(now);
    ASSERT_TRUE(peer.has_value());
    set->ObserveRetest(*peer, {0}, now);
  }
  EXPECT_EQ(set->Suspects(now), (std::map<size_t, Suspect>{{1, Suspect::kSelf}}));
}

TEST(ProbeDetailSetTest, WithoutBisectionNothingIsRetested) {
  TestFleet f = MakeFleet(1, 0);  // A loopback node.
  auto set = MakeSet(f, 0, false);
  EXPECT_FALSE(set->bisecting());
  set->ObservePlan(0, {0}, kStart);
  EXPECT_FALSE(set->RetestPeer(kStart + 200).has_value());
  EXPECT_FALSE(static_cast<bool>(set->Policy(kStart).suspects));
  EXPECT_TRUE(set->PathTargets(kStart).empty());
}

TEST(ProbeDetailSetTest, PeersWithoutARackAreSummarisedUnderTheEmptyRack) {
  TestFleet f = MakeFleet(30, 0);
  auto set = MakeSet(f, 0);
  ProbeDetailPolicy policy = set->Policy(kStart);
  ASSERT_TRUE(static_cast<bool>(policy.rack_of));
  EXPECT_EQ(policy.rack_of(f.names[7]), "");
  EXPECT_LE(set->PathTargets(kStart).size(), set->DetailPeers(kStart).size() + 1);
}

TEST(ProbeDetailSetTest, ScrapesReadWhileTheSchedulerWrites) {
  TestFleet f = MakeFleet(60, 6);
  auto set = MakeSet(f, 0);
  std::atomic<bool> done{false};
  std::thread scheduler([&] {
    for (int i = 0; i < 2000; ++i) {
      const double now = kStart + i * 10.0;
      set->ObservePlan(static_cast<size_t>(1 + i % 59), {i % 7 == 0 ? 10.0 : 95.0}, now);
      if (auto peer = set->RetestPeer(now)) set->ObserveRetest(*peer, {95}, now);
      for (size_t peer : set->PathTargets(now)) set->PathChecked(peer, peer % 11 == 0);
    }
    done = true;
  });
  size_t scrapes = 0;
  while (!done) {
    ProbeDetailPolicy policy = set->Policy(kStart + 1000);
    for (const auto& name : f.names) (void)policy.detail(Key(probe::Rung::kTcpMulti, name));
    (void)policy.suspects();
    ++scrapes;
  }
  scheduler.join();
  EXPECT_GT(scrapes, 0u);
}

// The fleet config of a TestFleet, `self` its node.
Fleet ConfigOf(const TestFleet& f, size_t self) {
  Fleet fleet{f.names[self], {}, "", ""};
  for (size_t i = 0; i < f.names.size(); ++i) {
    fleet.nodes.push_back(
        {f.names[i], "198.18.0." + std::to_string(i + 1), "ens1f0np0", 9000, f.racks[i]});
  }
  return fleet;
}

// The peers that have a fabric_fleet_peer_info series in `families`.
std::set<std::string> PeerInfoOf(const std::vector<prometheus::MetricFamily>& families) {
  std::set<std::string> peers;
  for (const auto& family : families) {
    if (family.name != "fabric_fleet_peer_info") continue;
    for (const auto& metric : family.metric) {
      for (const auto& label : metric.label) {
        if (label.name == "peer") peers.insert(label.value);
      }
    }
  }
  return peers;
}

TEST(ScrapePolicyTest, AboveTheBoundPeerInfoFollowsThePublishedPeersAndTheMesh) {
  TestFleet f = MakeFleet(ProbeDetailSet::kAllDetailMaxPeers + 10, 3);
  auto set = MakeSet(f, 0);
  ASSERT_FALSE(set->all_detail());
  const Fleet fleet = ConfigOf(f, 0);
  ResultStore store;
  for (size_t peer = 1; peer < f.names.size(); ++peer) {
    ProbeRecord r;
    r.key = Key(probe::Rung::kTcpMulti, f.names[peer]);
    r.timestamp_seconds = kStart;
    r.success = true;
    r.values[probe::ProbeValue::kThroughput] = 1e10;
    store.Record(r);
  }
  const std::vector<std::string> mesh = {f.names[20], f.names[21]};
  auto collector = MakeProbeResultsCollector(
      store, nullptr, [&] { return ScrapePolicy(*set, fleet, mesh, kStart); });
  MetricSink sink;
  ASSERT_TRUE(collector->Collect(sink).ok());
  std::set<std::string> expected = {mesh.begin(), mesh.end()};
  for (size_t peer : set->DetailPeers(kStart)) expected.insert(f.names[peer]);
  ASSERT_LT(expected.size(), f.names.size() - 1) << "the test needs summarised peers";
  EXPECT_EQ(PeerInfoOf(sink.TakeSorted()), expected);
}

TEST(ScrapePolicyTest, WithinTheBoundTheConstantSeriesCarryEveryPeer) {
  TestFleet f = MakeFleet(4, 2);
  auto set = MakeSet(f, 0);
  const Fleet fleet = ConfigOf(f, 0);
  const std::vector<std::string> mesh;
  EXPECT_FALSE(static_cast<bool>(ScrapePolicy(*set, fleet, mesh, kStart).peer_info));
  MetricSink sink;
  AddFleetInfo(fleet, sink);
  EXPECT_EQ(PeerInfoOf(sink.TakeSorted()),
            (std::set<std::string>{f.names[1], f.names[2], f.names[3]}));
}

TEST(SendResultSinceTest, FreshResultsOnly) {
  ResultStore store;
  ProbeRecord r;
  r.key = Key(probe::Rung::kTcpMulti, "b");
  r.timestamp_seconds = 100;
  r.success = true;
  r.values[probe::ProbeValue::kThroughput] = 42;
  store.Record(r);
  ASSERT_TRUE(SendResultSince(store, "b", 100).has_value());
  EXPECT_EQ(SendResultSince(store, "b", 100)->bytes_per_second, 42);
  EXPECT_EQ(SendResultSince(store, "b", 100)->path_line_bytes_per_second, 0) << "none recorded";
  r.values[probe::ProbeValue::kPathLineRate] = 3.125e9;  // A 25 GbE end.
  store.Record(r);
  EXPECT_EQ(SendResultSince(store, "b", 100)->path_line_bytes_per_second, 3.125e9);
  EXPECT_FALSE(SendResultSince(store, "b", 101).has_value()) << "an older round's result";
  EXPECT_FALSE(SendResultSince(store, "c", 0).has_value());
  r.success = false;
  r.values.clear();
  r.failure_reason = "unreachable";
  store.Record(r);
  ASSERT_TRUE(SendResultSince(store, "b", 100).has_value());
  EXPECT_EQ(SendResultSince(store, "b", 100)->bytes_per_second, 0)
      << "a failure is the bisection's 0";
  r.failure_reason = "busy";
  store.Record(r);
  EXPECT_FALSE(SendResultSince(store, "b", 100).has_value()) << "busy says nothing of the path";
}

TEST(PathCheckFailedTest, RouteJumboAndFailure) {
  ProbeRecord r;
  r.key = Key(probe::Rung::kPath, "b");
  r.success = true;
  r.values[probe::ProbeValue::kEgressMatchesExpected] = 1;
  r.values[probe::ProbeValue::kJumboFramesPass] = 1;
  EXPECT_FALSE(PathCheckFailed(r));
  r.values[probe::ProbeValue::kJumboFramesPass] = 0;
  EXPECT_TRUE(PathCheckFailed(r));
  r.values[probe::ProbeValue::kJumboFramesPass] = 1;
  r.values[probe::ProbeValue::kEgressMatchesExpected] = 0;
  EXPECT_TRUE(PathCheckFailed(r));
  ProbeRecord failed;
  failed.key = r.key;
  failed.failure_reason = "no_route";
  EXPECT_TRUE(PathCheckFailed(failed));
}

}  // namespace
}  // namespace fabric
