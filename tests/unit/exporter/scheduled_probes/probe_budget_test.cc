// The probe budget over a fake wall clock: time spent inside the last hour
// counts, overlapping runs count once, older runs fall out, and Allows() holds
// the hour inside the configured share.
#include "exporter/scheduled_probes/probe_budget.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "exporter/scheduled_probes/probe_runtime.h"
#include "exporter/scheduled_probes/storage_comparison_probe.h"
#include "exporter/scheduled_probes/tcp_comparison_probe.h"
#include "exporter/scheduled_probes/tcp_ladder_probe.h"

namespace fabric {
namespace {

constexpr double kT0 = 1'800'000'000;  // Any Unix time.

TEST(ProbeBudget, CountsOnlyTheLastHour) {
  ProbeBudget budget(0.05);
  budget.Spent(kT0 + 100, 60, ProbeRole::kRequester, 0);  // [40, 100]
  budget.Spent(kT0 + 1000, 30, ProbeRole::kRequester, 0);
  EXPECT_DOUBLE_EQ(budget.BusySeconds(kT0 + 1000), 90);
  EXPECT_DOUBLE_EQ(budget.BusyRatio(kT0 + 1000), 90.0 / 3600);
  // An hour after kT0 + 70 only the last 30 s of the first run are inside.
  EXPECT_DOUBLE_EQ(budget.BusySeconds(kT0 + 70 + 3600), 30 + 30);
  // Two hours later nothing is.
  EXPECT_DOUBLE_EQ(budget.BusySeconds(kT0 + 1000 + 3600), 0);
}

TEST(ProbeBudget, OverlappingRunsCountOnce) {
  // A loopback run: the node's requester and its responder at the same time.
  ProbeBudget budget(0.05);
  budget.Spent(kT0 + 20, 20, ProbeRole::kRequester, 0);
  // Inside the first: the responder's session.
  budget.Spent(kT0 + 19, 18, ProbeRole::kResponder, 0);
  budget.Spent(kT0 + 30, 15, ProbeRole::kRequester, 0);  // Overlaps its end by 5 s.
  EXPECT_DOUBLE_EQ(budget.BusySeconds(kT0 + 30), 30);
}

TEST(ProbeBudget, TotalsEachRoleSinceStart) {
  // What probing cost the node, per role, whatever left the hour's window.
  ProbeBudget budget(0.05);
  budget.Spent(kT0 + 20, 20, ProbeRole::kRequester, 5'000'000'000);
  budget.Spent(kT0 + 19, 18, ProbeRole::kResponder, 4'000'000'000);
  budget.Spent(kT0 + 7200, 30, ProbeRole::kRequester, 1'000'000'000);
  budget.Spent(kT0 + 7300, 0, ProbeRole::kResponder, 7);  // A session refused at once.
  EXPECT_DOUBLE_EQ(budget.Total(ProbeRole::kRequester).seconds, 50);
  EXPECT_EQ(budget.Total(ProbeRole::kRequester).bytes, 6'000'000'000u);
  EXPECT_DOUBLE_EQ(budget.Total(ProbeRole::kResponder).seconds, 18);
  EXPECT_EQ(budget.Total(ProbeRole::kResponder).bytes, 4'000'000'007u);
  EXPECT_DOUBLE_EQ(budget.BusySeconds(kT0 + 7300), 30);
}

TEST(ProbeBudget, RdmaBytesPerLocalPort) {
  ProbeBudget budget(0.05);
  budget.SpentRdma(ProbeRole::kRequester, "mlx5_0", 1, 6'000'000'000);
  budget.SpentRdma(ProbeRole::kRequester, "mlx5_0", 1, 2'000'000'000);
  budget.SpentRdma(ProbeRole::kRequester, "mlx5_1", 1, 5);
  const auto rdma = budget.Total(ProbeRole::kRequester).rdma_bytes;
  ASSERT_EQ(rdma.size(), 2u);
  EXPECT_EQ(rdma.at({"mlx5_0", 1}), 8'000'000'000u);
  EXPECT_EQ(rdma.at({"mlx5_1", 1}), 5u);
  // The TCP byte total is apart from it.
  EXPECT_EQ(budget.Total(ProbeRole::kRequester).bytes, 0u);
  EXPECT_TRUE(budget.Total(ProbeRole::kResponder).rdma_bytes.empty());
  // A reload keeps the counters.
  ProbeBudget after(0.05);
  after.Adopt(budget);
  EXPECT_EQ(after.Total(ProbeRole::kRequester).rdma_bytes.at({"mlx5_0", 1}), 8'000'000'000u);
}

TEST(ProbeBudget, AReloadKeepsTheHourAndTheTotals) {
  ProbeBudget before(0.05);
  before.Spent(kT0 + 20, 20, ProbeRole::kRequester, 5'000'000'000);
  before.Spent(kT0 + 40, 10, ProbeRole::kResponder, 1'000);
  ProbeBudget after(0.1);
  after.Adopt(before);
  EXPECT_DOUBLE_EQ(after.BusySeconds(kT0 + 40), 30);
  EXPECT_EQ(after.Total(ProbeRole::kRequester).bytes, 5'000'000'000u);
  EXPECT_DOUBLE_EQ(after.Total(ProbeRole::kResponder).seconds, 10);
}

TEST(ProbeBudget, AllowsRunsUpToTheShareOfTheHour) {
  ProbeBudget budget(0.05);  // 180 s an hour.
  EXPECT_TRUE(budget.Allows(kT0, 180));
  EXPECT_FALSE(budget.Allows(kT0, 181));
  budget.Spent(kT0, 150, ProbeRole::kRequester, 0);
  EXPECT_TRUE(budget.Allows(kT0, 30));
  EXPECT_FALSE(budget.Allows(kT0, 31));
  // The run leaves the window and the budget is back.
  EXPECT_TRUE(budget.Allows(kT0 + 3600, 180));
  ProbeBudget none(0);
  EXPECT_FALSE(none.Allows(kT0, 1));
  EXPECT_TRUE(none.Allows(kT0, 0));
}

TEST(ProbeBudget, ReportsFromTwoThreadsInAnyOrder) {
  // The responder's session may end before the scheduler's run that started earlier.
  ProbeBudget budget(1);
  budget.Spent(kT0 + 50, 10, ProbeRole::kRequester, 0);
  budget.Spent(kT0 + 20, 10, ProbeRole::kRequester, 0);
  EXPECT_DOUBLE_EQ(budget.BusySeconds(kT0 + 60), 20);
}

// The defaults must leave the comparison runs room to run: a node that is in
// a plan session every round (as requester or responder, the most a plan
// gives it), with the default durations, calibration, single-stream turn and
// hourly storage rungs, still runs a copy-mode comparison at every comparison
// turn and its storage comparison slot at least every other interval, inside
// the default budget. Driven as ProbeRuntime drives the budget (Spent after
// each run, Allows before each comparison), over six hours of rounds.
TEST(ProbeBudget, DefaultsLeaveRoomForTheComparisons) {
  const ProbeSettings settings;
  const TcpLadderSettings& tcp = settings.tcp;
  const StorageLadderSettings& storage = settings.storage;
  ASSERT_TRUE(tcp.calibration.enabled);
  ProbeBudget budget(settings.budget);
  const double round = tcp.round_seconds;
  const double copy = CopyComparisonSeconds(tcp);
  const double storage_rungs = 2 * StorageRunSeconds(storage);
  const double storage_comparison = 2 * StorageRunSeconds(storage);  // The largest slot.
  int copies_last_hour = 0;
  int storage_comparisons = 0;
  const uint64_t rounds = static_cast<uint64_t>(6 * 3600 / round);
  double next_storage = kT0;
  for (uint64_t r = 0; r < rounds; ++r) {
    double now = kT0 + static_cast<double>(r) * round;
    if (now >= next_storage) {
      now += storage_rungs;
      budget.Spent(now, storage_rungs, ProbeRole::kRequester, 0);
      if (budget.Allows(now, storage_comparison)) {
        now += storage_comparison;
        budget.Spent(now, storage_comparison, ProbeRole::kRequester, 0);
        ++storage_comparisons;
      }
      next_storage += storage.interval_seconds;
    }
    const double ladder = TcpLadderSeconds(tcp, SingleStreamDue(tcp, r));
    now += ladder;
    budget.Spent(now, ladder, ProbeRole::kRequester, 0);
    if (PairComparisonTurn(tcp, r) && budget.Allows(now, copy)) {
      now += copy;
      budget.Spent(now, copy, ProbeRole::kRequester, 0);
      if (static_cast<double>(r) * round >= 5 * 3600) ++copies_last_hour;
    }
    EXPECT_LE(budget.BusyRatio(now), settings.budget) << "round " << r;
  }
  EXPECT_EQ(copies_last_hour, static_cast<int>(3600 / round / tcp.single_stream_every));
  // With storage on, its comparison slot finds room at least every other
  // interval (the slots rotate, so each runs every few hours).
  EXPECT_GE(storage_comparisons, 3);
  // The rungs alone stay well inside the budget, whatever the comparisons do.
  const double rungs_per_hour = 3600 / round *
                                    (TcpLadderSeconds(tcp, false) * (tcp.single_stream_every - 1) +
                                     TcpLadderSeconds(tcp, true)) /
                                    tcp.single_stream_every +
                                storage_rungs * 3600 / storage.interval_seconds;
  EXPECT_LT(rungs_per_hour, 0.75 * settings.budget * 3600);
}

TEST(ProbeBudget, PairsStartTheirSingleStreamTurnsAtDifferentMeetings) {
  TcpLadderSettings tcp;
  tcp.single_stream_every = 4;
  // Stable for a pair, and the order of the names matters (each end counts
  // the meetings it initiates).
  EXPECT_EQ(FirstMeeting(tcp, "node-1", "node-2"), FirstMeeting(tcp, "node-1", "node-2"));
  std::map<uint64_t, int> phases;
  for (int i = 0; i < 400; ++i) {
    const uint64_t first = FirstMeeting(tcp, "node-0", "node-" + std::to_string(i + 1));
    ASSERT_LT(first, 4u);
    ++phases[first];
  }
  // A node's first pass over 400 peers carries the single-stream rung at
  // about a quarter of its meetings, not at all of them.
  ASSERT_EQ(phases.size(), 4u);
  for (const auto& [phase, pairs] : phases) {
    EXPECT_GT(pairs, 60) << "phase " << phase;
    EXPECT_LT(pairs, 140) << "phase " << phase;
  }
  int single_at_first = 0;
  for (int i = 0; i < 400; ++i) {
    single_at_first +=
        SingleStreamDue(tcp, FirstMeeting(tcp, "node-0", "node-" + std::to_string(i + 1)));
  }
  EXPECT_EQ(single_at_first, phases[0]);
  tcp.single_stream_every = 1;
  EXPECT_EQ(FirstMeeting(tcp, "node-0", "node-7"), 0u);
}

TEST(ProbeBudget, SingleStreamRunsAtEveryNthMeeting) {
  TcpLadderSettings tcp;
  tcp.single_stream_every = 3;
  EXPECT_TRUE(SingleStreamDue(tcp, 0));
  EXPECT_FALSE(SingleStreamDue(tcp, 1));
  EXPECT_FALSE(SingleStreamDue(tcp, 2));
  EXPECT_TRUE(SingleStreamDue(tcp, 3));
  // The comparison turn is the meeting after the single-stream one.
  EXPECT_FALSE(PairComparisonTurn(tcp, 0));
  EXPECT_TRUE(PairComparisonTurn(tcp, 1));
  EXPECT_FALSE(PairComparisonTurn(tcp, 2));
  EXPECT_TRUE(PairComparisonTurn(tcp, 4));
  tcp.single_stream_every = 1;
  EXPECT_TRUE(SingleStreamDue(tcp, 1));
  EXPECT_TRUE(PairComparisonTurn(tcp, 1));
  tcp.single_stream = false;
  EXPECT_FALSE(SingleStreamDue(tcp, 0));
  EXPECT_DOUBLE_EQ(TcpLadderSeconds(tcp, true), TcpLadderSeconds(tcp, false));
  tcp.single_stream = true;
  tcp.calibration.enabled = false;
  // One session a rung, both directions at once.
  EXPECT_DOUBLE_EQ(TcpLadderSeconds(tcp, true),
                   2 * (tcp.duration_seconds + tcp.warmup_seconds + 1));
}

}  // namespace
}  // namespace fabric
