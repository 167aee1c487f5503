// The probe budget over a fake wall clock: time spent inside the last hour
// counts, overlapping runs count once, older runs fall out, and Allows() holds
// the hour inside the configured share.
#include "exporter/scheduled_probes/probe_budget.h"

#include <gtest/gtest.h>

namespace fabric {
namespace {

constexpr double kT0 = 1'800'000'000;  // Any Unix time.

TEST(ProbeBudget, CountsOnlyTheLastHour) {
  ProbeBudget budget(0.05);
  budget.Spent(kT0 + 100, 60);  // [40, 100]
  budget.Spent(kT0 + 1000, 30);
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
  budget.Spent(kT0 + 20, 20);
  budget.Spent(kT0 + 19, 18);  // Inside the first (the responder's session).
  budget.Spent(kT0 + 30, 15);  // Overlaps its end by 5 s.
  EXPECT_DOUBLE_EQ(budget.BusySeconds(kT0 + 30), 30);
}

TEST(ProbeBudget, AllowsRunsUpToTheShareOfTheHour) {
  ProbeBudget budget(0.05);  // 180 s an hour.
  EXPECT_TRUE(budget.Allows(kT0, 180));
  EXPECT_FALSE(budget.Allows(kT0, 181));
  budget.Spent(kT0, 150);
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
  budget.Spent(kT0 + 50, 10);
  budget.Spent(kT0 + 20, 10);
  EXPECT_DOUBLE_EQ(budget.BusySeconds(kT0 + 60), 20);
}

}  // namespace
}  // namespace fabric
