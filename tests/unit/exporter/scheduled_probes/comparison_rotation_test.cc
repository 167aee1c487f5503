// The comparison rotation, driven the way the runtime drives it: one
// opportunity per plan round (or storage interval), the budget deciding
// whether the due slot runs, over a fake wall clock.
#include "exporter/scheduled_probes/comparison_rotation.h"

#include <gtest/gtest.h>

#include <map>

#include "exporter/scheduled_probes/probe_budget.h"

namespace fabric {
namespace {

using probe::Rung;
using Slot = ComparisonRotation::Slot;

bool Always(const Slot&) { return true; }

TEST(ComparisonRotation, SlotsTakeTurnsPerTarget) {
  ComparisonRotation r({{Rung::kStorageReadBuffered},
                        {Rung::kStorageReadSharedFile, Rung::kStorageReadSeparateFiles},
                        {Rung::kStorageReadDepth1, Rung::kStorageWriteDepth1}});
  EXPECT_EQ(r.PeriodInOpportunities(), 3u);
  std::vector<size_t> order;
  for (int i = 0; i < 6; ++i) {
    auto due = r.Due("/data", Always);
    ASSERT_TRUE(due);
    order.push_back(*due);
    r.Ran("/data", *due);
  }
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 0, 1, 2}));
  // Another target has its own turn.
  EXPECT_EQ(r.Due("/scratch", Always), 0u);
}

TEST(ComparisonRotation, ASlotThatDoesNotApplyIsPassedOver) {
  ComparisonRotation r({{Rung::kTcpMultiCopy}, {Rung::kTcpMultiSweep}});
  bool sweep_wanted = false;
  auto applies = [&](const Slot& s) { return s.front() != Rung::kTcpMultiSweep || sweep_wanted; };
  std::vector<Rung> ran;
  for (int i = 0; i < 3; ++i) {
    auto due = r.Due("b", applies);
    ASSERT_TRUE(due);
    ran.push_back(r.slot(*due).front());
    r.Ran("b", *due);
  }
  // No sweep asked for: the copy run every time.
  EXPECT_EQ(ran, (std::vector<Rung>(3, Rung::kTcpMultiCopy)));
  sweep_wanted = true;  // A tcp_multi result flagged stream_limited.
  ran.clear();
  for (int i = 0; i < 4; ++i) {
    auto due = r.Due("b", applies);
    ran.push_back(r.slot(*due).front());
    r.Ran("b", *due);
  }
  EXPECT_EQ(ran, (std::vector<Rung>{Rung::kTcpMultiSweep, Rung::kTcpMultiCopy, Rung::kTcpMultiSweep,
                                    Rung::kTcpMultiCopy}));
  ComparisonRotation none({{Rung::kTcpMultiSweep}});
  sweep_wanted = false;
  EXPECT_FALSE(none.Due("b", applies));
}

TEST(ComparisonRotation, ADeferredSlotKeepsItsTurn) {
  // The runtime calls Ran() only after a run: a slot the budget deferred is due again.
  ComparisonRotation r({{Rung::kStorageReadBuffered}, {Rung::kStorageReadDepth1}});
  EXPECT_EQ(r.Due("/data", Always), 0u);
  EXPECT_EQ(r.Due("/data", Always), 0u);
  r.Ran("/data", 0);
  EXPECT_EQ(r.Due("/data", Always), 1u);
}

// The runtime's loop over a day of 10-minute rounds with a fake clock: rungs
// take 48 s a round, a comparison 13 s; with the budget at 5% of the hour
// (180 s) the rungs alone use 6 x 48 = 288 s, so once the first hour has
// filled no comparison may run; at 15% (540 s) every round has room for one
// and they alternate. Counted from the third hour on (steady state).
std::map<Rung, int> Simulate(double ratio, bool sweep_wanted) {
  ProbeBudget budget(ratio);
  ComparisonRotation r({{Rung::kTcpMultiCopy}, {Rung::kTcpMultiSweep}});
  auto applies = [&](const Slot& s) { return s.front() != Rung::kTcpMultiSweep || sweep_wanted; };
  std::map<Rung, int> runs;
  double now = 1'800'000'000;
  for (int round = 0; round < 144; ++round, now += 600) {
    budget.Spent(now + 48, 48, ProbeRole::kRequester, 0);
    auto due = r.Due("loopback", applies);
    const double expected = r.slot(*due).front() == Rung::kTcpMultiSweep ? 4 * 13 : 13;
    if (!budget.Allows(now + 48, expected)) continue;
    budget.Spent(now + 48 + expected, expected, ProbeRole::kRequester, 0);
    if (round >= 12) ++runs[r.slot(*due).front()];
    r.Ran("loopback", *due);
    // Never more than the budget over any hour.
    EXPECT_LE(budget.BusySeconds(now + 48 + expected), std::max(288.0, ratio * 3600) + 1e-9);
  }
  return runs;
}

TEST(ComparisonRotation, RunsInsideTheBudget) {
  EXPECT_TRUE(Simulate(0.05, true).empty());
  auto runs = Simulate(0.15, false);
  EXPECT_EQ(runs[Rung::kTcpMultiCopy], 132);
  EXPECT_EQ(runs[Rung::kTcpMultiSweep], 0);
  runs = Simulate(0.15, true);
  // 288 s of rungs + 3 copies (39 s) + 3 sweeps (156 s) = 483 s an hour: all fit.
  EXPECT_EQ(runs[Rung::kTcpMultiCopy], 66);
  EXPECT_EQ(runs[Rung::kTcpMultiSweep], 66);
  runs = Simulate(0.12, true);  // 432 s: some rounds wait for room.
  EXPECT_GT(runs[Rung::kTcpMultiSweep], 0);
  EXPECT_LT(runs[Rung::kTcpMultiSweep] + runs[Rung::kTcpMultiCopy], 132);
}

}  // namespace
}  // namespace fabric
