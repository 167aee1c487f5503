#include "exporter/scheduled_probes/bisection.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fabric {
namespace {

constexpr double kLine = 100;

// Nodes 0-3 in rack a, 4-7 in rack b; this node is 0.
Bisection Make() { return Bisection({"a", "a", "a", "a", "b", "b", "b", "b"}, 0, kLine); }

// Runs the retests `truth(peer)` says, until the case concludes.
template <typename Truth>
void Settle(Bisection& b, double& now, Truth truth) {
  for (int i = 0; i < 4; ++i) {
    now += 200;
    if (auto peer = b.NextRetest(now)) b.Observe(*peer, truth(*peer), now, true);
  }
}

TEST(BisectionTest, TheFarEndIsBlamedWhenItsRackIsFine) {
  Bisection b = Make();
  double now = 1000;
  b.Observe(5, 95, now, false);  // Known good in rack b.
  b.Observe(4, 30, now, false);  // Low: opens a case.
  auto peer = b.NextRetest(now + 200);
  ASSERT_TRUE(peer.has_value());
  EXPECT_EQ(*peer, 5u);  // The known-good peer of the target's rack.
  b.Observe(*peer, 94, now + 200, true);
  auto suspects = b.Suspects(now + 200);
  ASSERT_EQ(suspects.count(4), 1u);
  EXPECT_EQ(suspects[4], Suspect::kPeer);
}

TEST(BisectionTest, ThisEndIsBlamedWhenEverythingIsLow) {
  Bisection b = Make();
  double now = 1000;
  b.Observe(4, 30, now, false);
  Settle(b, now, [](size_t) { return 30.0; });
  auto suspects = b.Suspects(now);
  ASSERT_EQ(suspects.count(4), 1u);
  EXPECT_EQ(suspects[4], Suspect::kSelf);
}

TEST(BisectionTest, ThePathIsBlamedWhenOnlyTheOtherRackIsLow) {
  Bisection b = Make();
  double now = 1000;
  b.Observe(4, 30, now, false);
  Settle(b, now, [](size_t peer) { return peer >= 4 ? 30.0 : 95.0; });
  auto suspects = b.Suspects(now);
  ASSERT_EQ(suspects.count(4), 1u);
  EXPECT_EQ(suspects[4], Suspect::kPath);
  // A good result to the target clears the blame.
  b.Observe(4, 95, now + 10, false);
  EXPECT_EQ(b.Suspects(now + 10).count(4), 0u);
}

TEST(BisectionTest, RetestsAreBudgeted) {
  BisectionSettings settings;
  settings.max_retests_per_hour = 2;
  Bisection b({"a", "a", "b", "b", "b", "b"}, 0, kLine, settings);
  for (size_t peer = 2; peer < 4; ++peer) b.Observe(peer, 10, 0, false);  // 4, 5 unseen.
  int retests = 0;
  for (double now = 1; now < 3000; now += 100) {
    if (b.NextRetest(now)) ++retests;
  }
  EXPECT_EQ(retests, 2);
  EXPECT_TRUE(b.Suspects(0).empty());
}

TEST(BisectionTest, HealthyResultsOpenNothing) {
  Bisection b = Make();
  for (size_t peer = 1; peer < 8; ++peer) b.Observe(peer, 95, 10, false);
  EXPECT_FALSE(b.NextRetest(20).has_value());
  EXPECT_TRUE(b.Involved(20).empty());
}

}  // namespace
}  // namespace fabric
