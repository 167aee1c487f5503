// The generic adapter of the probe seam with a fake probe: what a run's
// measurements or error become in the ResultStore and in the scheduler's
// outcome, for every error code, with the timestamp and duration from the
// context's clock.
#include "exporter/scheduled_probes/probe_adapter.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>

#include "active-probes/probe/error_kinds.h"
#include "tests/unit/active-probes/probe/probe_test_context.h"

namespace fabric {
namespace {

using probe::Direction;
using probe::Measurement;
using probe::ProbeValue;
using probe::Rung;
using probe::Verdict;

const probe::ProbeDeclaration& FakeDeclaration() {
  static const probe::ProbeDeclaration declaration{
      "fake",
      {Rung::kTcpMulti},
      {ProbeValue::kThroughput, ProbeValue::kStreams},
      {Verdict::kCpuBound},
  };
  return declaration;
}

// Returns what the test sets, taking `takes` of the fake clock's time.
class FakeProbe : public probe::Probe {
 public:
  FakeProbe(testing::FakeClock& clock, Result<std::vector<Measurement>> result)
      : clock_(clock), result_(std::move(result)) {}
  const probe::ProbeDeclaration& declaration() const override { return FakeDeclaration(); }
  Rung rung() const override { return Rung::kTcpMulti; }
  std::string target() const override { return "node-b"; }
  Result<std::vector<Measurement>> Run(const probe::ProbeContext& context) override {
    ++runs;
    saw_root = &context.root;
    clock_.Advance(std::chrono::milliseconds(1500));
    if (on_run) on_run();
    return result_;
  }

  int runs = 0;
  const SysRoot* saw_root = nullptr;
  std::function<void()> on_run;

 private:
  testing::FakeClock& clock_;
  Result<std::vector<Measurement>> result_;
};

class ProbeAdapterTest : public ::testing::Test {
 protected:
  probe::ProbeContext Context() { return probe::ProbeContext{root_, stop_.token(), clock_}; }

  SysRoot root_{"/fixture/proc", "/fixture/sys"};
  StopSource stop_;
  testing::FakeClock clock_;
  ResultStore store_;
};

Measurement Send(double throughput) {
  Measurement m;
  m.direction = Direction::kSend;
  m.values[ProbeValue::kThroughput] = throughput;
  m.values[ProbeValue::kStreams] = 8;
  m.verdicts[Verdict::kCpuBound] = true;
  m.info["mode"] = "sendfile";
  return m;
}

TEST_F(ProbeAdapterTest, SuccessRecordsValuesVerdictsAndTheClocksTimes) {
  clock_.SetWall(1800000000);
  Measurement receive = Send(2e9);
  receive.direction = Direction::kReceive;
  receive.verdicts[Verdict::kCpuBound] = false;
  FakeProbe fake(clock_, std::vector<Measurement>{Send(3e9), receive});
  EXPECT_EQ(RunAndRecord(fake, Context(), store_), ProbeOutcome::kSuccess);
  EXPECT_EQ(fake.saw_root, &root_);
  auto records = store_.Snapshot();
  ASSERT_EQ(records.size(), 2u);
  // Ordered by labels: receive before send.
  const ProbeRecord& rx = records[0];
  const ProbeRecord& tx = records[1];
  EXPECT_EQ(tx.key, (ProbeKey{Rung::kTcpMulti, "node-b", Direction::kSend}));
  EXPECT_EQ(rx.key.direction, Direction::kReceive);
  EXPECT_TRUE(tx.success);
  EXPECT_TRUE(tx.failure_reason.empty());
  EXPECT_DOUBLE_EQ(tx.timestamp_seconds, 1800000001.5);  // The wall clock when the run ended.
  EXPECT_DOUBLE_EQ(tx.duration_seconds, 1.5);
  EXPECT_DOUBLE_EQ(tx.values.at(ProbeValue::kThroughput), 3e9);
  EXPECT_DOUBLE_EQ(rx.values.at(ProbeValue::kThroughput), 2e9);
  EXPECT_DOUBLE_EQ(tx.values.at(ProbeValue::kStreams), 8);
  EXPECT_TRUE(tx.verdicts.at(Verdict::kCpuBound));
  EXPECT_FALSE(rx.verdicts.at(Verdict::kCpuBound));
  EXPECT_EQ(tx.info.at("mode"), "sendfile");
}

TEST_F(ProbeAdapterTest, UndeclaredValuesAndVerdictsAreNotPublished) {
  Measurement m = Send(1e9);
  m.values[ProbeValue::kRtt] = 0.001;         // Not declared by the fake kind.
  m.verdicts[Verdict::kLatencyBound] = true;  // Nor this.
  FakeProbe fake(clock_, std::vector<Measurement>{m});
  EXPECT_EQ(RunAndRecord(fake, Context(), store_), ProbeOutcome::kSuccess);
  auto records = store_.Snapshot();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].values.count(ProbeValue::kRtt), 0u);
  EXPECT_EQ(records[0].verdicts.count(Verdict::kLatencyBound), 0u);
  EXPECT_EQ(records[0].values.size(), 2u);
}

TEST_F(ProbeAdapterTest, EveryErrorCodeRecordsItsReasonOnEveryDirection) {
  for (const probe::ErrorKind& kind : probe::ErrorKinds()) {
    if (kind.code == ErrorCode::kInterrupted) continue;
    SCOPED_TRACE(std::string(kind.reason));
    ResultStore store;
    FakeProbe fake(clock_, MakeError(kind.code, "what went wrong"));
    ProbeOutcome outcome = RunAndRecord(fake, Context(), store);
    EXPECT_EQ(outcome,
              kind.code == ErrorCode::kBusy ? ProbeOutcome::kBusy : ProbeOutcome::kFailure);
    auto records = store.Snapshot();
    ASSERT_EQ(records.size(), 2u);  // tcp_multi: receive and send.
    for (const ProbeRecord& r : records) {
      EXPECT_FALSE(r.success);
      EXPECT_EQ(r.failure_reason, kind.reason);
      EXPECT_EQ(r.failure_detail, "what went wrong");
      EXPECT_TRUE(r.values.empty());
      EXPECT_DOUBLE_EQ(r.duration_seconds, 1.5);
      EXPECT_GT(r.timestamp_seconds, 0);
    }
  }
}

TEST_F(ProbeAdapterTest, ReasonsAreTheDocumentedLabels) {
  // The labels alerts and the e2e tests match on.
  auto reason = [](ErrorCode code) { return std::string(probe::KindOf(code).reason); };
  EXPECT_EQ(reason(ErrorCode::kRefused), "refused");
  EXPECT_EQ(reason(ErrorCode::kBusy), "busy");
  EXPECT_EQ(reason(ErrorCode::kAuth), "auth");
  EXPECT_EQ(reason(ErrorCode::kUnreachable), "unreachable");
  EXPECT_EQ(reason(ErrorCode::kTimeout), "timeout");
  EXPECT_EQ(reason(ErrorCode::kAborted), "aborted");
  EXPECT_EQ(reason(ErrorCode::kRejected), "rejected");
  EXPECT_EQ(reason(ErrorCode::kNoSpace), "no_space");
  EXPECT_EQ(reason(ErrorCode::kNoDevice), "no_device");
  EXPECT_EQ(reason(ErrorCode::kNoActivePort), "no_active_port");
  EXPECT_EQ(reason(ErrorCode::kOther), "error");
}

TEST_F(ProbeAdapterTest, InterruptedRecordsNothingAndKeepsThePreviousResult) {
  FakeProbe ok(clock_, std::vector<Measurement>{Send(1e9), Send(1e9)});
  ASSERT_EQ(RunAndRecord(ok, Context(), store_), ProbeOutcome::kSuccess);
  const auto before = store_.Snapshot();

  FakeProbe interrupted(clock_, MakeError(ErrorCode::kInterrupted, "interrupted: stopped"));
  EXPECT_EQ(RunAndRecord(interrupted, Context(), store_), ProbeOutcome::kFailure);
  auto after = store_.Snapshot();
  ASSERT_EQ(after.size(), before.size());
  EXPECT_TRUE(after[0].success);
  EXPECT_DOUBLE_EQ(after[0].timestamp_seconds, before[0].timestamp_seconds);
}

TEST_F(ProbeAdapterTest, AFailureAfterTheStopRequestIsAnInterruption) {
  // A probe that noticed the stop late and failed some other way (its socket
  // shut by the shutdown) says nothing about the peer either.
  FakeProbe fake(clock_, MakeError(ErrorCode::kAborted, "connection reset"));
  fake.on_run = [this] { stop_.RequestStop(); };
  EXPECT_EQ(RunAndRecord(fake, Context(), store_), ProbeOutcome::kFailure);
  EXPECT_TRUE(store_.Snapshot().empty());
}

TEST_F(ProbeAdapterTest, KeysFollowTheRungTable) {
  EXPECT_EQ(KeysOf(Rung::kTcpSingle, "n").size(), 2u);
  ASSERT_EQ(KeysOf(Rung::kRdma, "n").size(), 1u);
  EXPECT_EQ(KeysOf(Rung::kRdma, "n")[0].direction, Direction::kSend);
  ASSERT_EQ(KeysOf(Rung::kStorageRead, "/d").size(), 1u);
  EXPECT_EQ(KeysOf(Rung::kStorageRead, "/d")[0].direction, Direction::kNone);
}

}  // namespace
}  // namespace fabric
