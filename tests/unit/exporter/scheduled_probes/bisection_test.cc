#include "exporter/scheduled_probes/bisection.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fabric {
namespace {

constexpr double kLine = 100;

// Nodes 0-3 in rack a, 4-7 in rack b; this node is 0.
Bisection Make() { return Bisection({"a", "a", "a", "a", "b", "b", "b", "b"}, 0, kLine); }

// The same racks with real line rates, this node at 200 GbE (OnPath says
// which peers are 25 GbE).
Bisection Make200GAmong25G() {
  return Bisection({"a", "a", "a", "a", "b", "b", "b", "b"}, 0, 25e9);
}

// Runs the retests `truth(peer)` says, until the case concludes.
template <typename Truth>
void Settle(Bisection& b, double& now, Truth truth) {
  for (int i = 0; i < 4; ++i) {
    now += 200;
    if (auto peer = b.NextRetest(now)) b.Observe(*peer, {truth(*peer)}, now, true);
  }
}

TEST(BisectionTest, TheFarEndIsBlamedWhenItsRackIsFine) {
  Bisection b = Make();
  double now = 1000;
  b.Observe(5, {95}, now, false);  // Known good in rack b.
  b.Observe(4, {30}, now, false);  // Low: opens a case.
  auto peer = b.NextRetest(now + 200);
  ASSERT_TRUE(peer.has_value());
  EXPECT_EQ(*peer, 5u);  // The known-good peer of the target's rack.
  b.Observe(*peer, {94}, now + 200, true);
  auto suspects = b.Suspects(now + 200);
  ASSERT_EQ(suspects.count(4), 1u);
  EXPECT_EQ(suspects[4], Suspect::kPeer);
}

TEST(BisectionTest, ThisEndIsBlamedWhenEverythingIsLow) {
  Bisection b = Make();
  double now = 1000;
  b.Observe(4, {30}, now, false);
  Settle(b, now, [](size_t) { return 30.0; });
  auto suspects = b.Suspects(now);
  ASSERT_EQ(suspects.count(4), 1u);
  EXPECT_EQ(suspects[4], Suspect::kSelf);
}

TEST(BisectionTest, ThePathIsBlamedWhenOnlyTheOtherRackIsLow) {
  Bisection b = Make();
  double now = 1000;
  b.Observe(4, {30}, now, false);
  Settle(b, now, [](size_t peer) { return peer >= 4 ? 30.0 : 95.0; });
  auto suspects = b.Suspects(now);
  ASSERT_EQ(suspects.count(4), 1u);
  EXPECT_EQ(suspects[4], Suspect::kPath);
  // A good result to the target clears the blame.
  b.Observe(4, {95}, now + 10, false);
  EXPECT_EQ(b.Suspects(now + 10).count(4), 0u);
}

TEST(BisectionTest, RetestsAreBudgeted) {
  BisectionSettings settings;
  settings.max_retests_per_hour = 2;
  Bisection b({"a", "a", "b", "b", "b", "b"}, 0, kLine, settings);
  for (size_t peer = 2; peer < 4; ++peer) b.Observe(peer, {10}, 0, false);  // 4, 5 unseen.
  int retests = 0;
  for (double now = 1; now < 3000; now += 100) {
    if (b.NextRetest(now)) ++retests;
  }
  EXPECT_EQ(retests, 2);
  EXPECT_TRUE(b.Suspects(0).empty());
}

// Issue 42 item 6: a 200 GbE node (this one, line 25 GB/s) in a mixed fleet;
// rack b holds two 25 GbE storage nodes (4, 5) beside two 200 GbE ones. Its
// results to the storage nodes run at 94% of their 3.125 GB/s line, 12% of
// its own: judged against its own line they opened cases, and the retest
// against a 200 GbE rack-mate blamed each healthy 25 GbE node ("peer").
constexpr double k200G = 25e9;
constexpr double k25G = 3.125e9;

SendResult OnPath(size_t peer, double fraction) {
  const double line = peer == 4 || peer == 5 ? k25G : k200G;
  return {fraction * line, line};
}

TEST(BisectionTest, AMixedFleetIsJudgedAgainstEachPathsLine) {
  Bisection b = Make200GAmong25G();
  double now = 1000;
  for (size_t peer = 1; peer < 8; ++peer) b.Observe(peer, OnPath(peer, 0.94), now, false);
  Settle(b, now, [](size_t peer) { return OnPath(peer, 0.94); });
  EXPECT_TRUE(b.Suspects(now).empty());
  EXPECT_TRUE(b.Involved(now).empty());
}

TEST(BisectionTest, ASlow25GPeerIsStillBlamedOnItsOwnPath) {
  // Peer 4 at 40% of its 25 GbE line, its rack-mates at 94%: the
  // counterpart of the test above still finds the slow end.
  Bisection b = Make200GAmong25G();
  double now = 1000;
  for (size_t peer = 1; peer < 8; ++peer) {
    if (peer != 4) b.Observe(peer, OnPath(peer, 0.94), now, false);
  }
  b.Observe(4, OnPath(4, 0.4), now, false);
  Settle(b, now, [](size_t peer) { return OnPath(peer, peer == 4 ? 0.4 : 0.94); });
  auto suspects = b.Suspects(now);
  ASSERT_EQ(suspects.size(), 1u);
  EXPECT_EQ(suspects[4], Suspect::kPeer);
}

TEST(BisectionTest, WithoutThePathsLineThisNodesLineJudges) {
  // A peer that reports no speed: the path can carry no more than this node's line.
  Bisection b = Make200GAmong25G();
  EXPECT_TRUE(b.Low({0.5 * k200G, 0}));
  EXPECT_FALSE(b.Low({0.9 * k200G, 0}));
  EXPECT_TRUE(b.Low({0, k25G})) << "a failed run is low on any path";
}

TEST(BisectionTest, HealthyResultsOpenNothing) {
  Bisection b = Make();
  for (size_t peer = 1; peer < 8; ++peer) b.Observe(peer, {95}, 10, false);
  EXPECT_FALSE(b.NextRetest(20).has_value());
  EXPECT_TRUE(b.Involved(20).empty());
}

}  // namespace
}  // namespace fabric
