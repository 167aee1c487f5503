// The comparison runs' pure halves: the stream sweep's record from its steps,
// when a tcp_multi result asks for a sweep, and what each storage comparison
// asks of the storage probe.
#include <gtest/gtest.h>

#include "exporter/scheduled_probes/storage_comparison_probe.h"
#include "exporter/scheduled_probes/tcp_comparison_probe.h"

namespace fabric {
namespace {

using probe::Direction;
using probe::ProbeValue;
using probe::Rung;
using probe::Verdict;

TEST(TcpSweep, StreamCountsStopAtTheRespondersLimit) {
  EXPECT_EQ(SweepStreamCounts(64), (std::vector<uint32_t>{8, 16, 32, 48}));
  EXPECT_EQ(SweepStreamCounts(32), (std::vector<uint32_t>{8, 16, 32}));
  EXPECT_EQ(SweepStreamCounts(4), (std::vector<uint32_t>{4}));
}

TEST(TcpSweep, SaturatingCountIsWhereItStoppedGrowing) {
  // Field shape 10: 8 streams 120 Gb/s, 16 streams 190, 32 streams 194.
  auto m = SweepMeasurement(Direction::kSend, {{32, 24.25e9}, {8, 15e9}, {16, 23.75e9}});
  EXPECT_EQ(m.direction, Direction::kSend);
  EXPECT_DOUBLE_EQ(m.values.at(ProbeValue::kThroughput), 24.25e9);
  EXPECT_DOUBLE_EQ(m.values.at(ProbeValue::kSaturatingStreams), 16);
  EXPECT_DOUBLE_EQ(m.values.at(ProbeValue::kStreams), 16);
  EXPECT_DOUBLE_EQ(m.values.at(ProbeValue::kPerStreamCeiling), 15e9 / 8);
  EXPECT_FALSE(m.verdicts.at(Verdict::kStreamLimited));
}

TEST(TcpSweep, StillGrowingAtTheLargestCount) {
  auto m = SweepMeasurement(Direction::kReceive, {{8, 4e9}, {16, 8e9}, {32, 16e9}, {48, 20e9}});
  EXPECT_EQ(m.values.count(ProbeValue::kSaturatingStreams), 0u);
  EXPECT_DOUBLE_EQ(m.values.at(ProbeValue::kStreams), 48);
  EXPECT_DOUBLE_EQ(m.values.at(ProbeValue::kThroughput), 20e9);
  EXPECT_TRUE(m.verdicts.at(Verdict::kStreamLimited));
  // Growth of exactly 10% still counts as growing; just under does not.
  auto edge = SweepMeasurement(Direction::kSend, {{8, 10e9}, {16, 11e9}, {32, 12.09e9}});
  EXPECT_DOUBLE_EQ(edge.values.at(ProbeValue::kSaturatingStreams), 16);
  // One step says nothing about growth.
  auto one = SweepMeasurement(Direction::kSend, {{4, 10e9}});
  EXPECT_FALSE(one.verdicts.at(Verdict::kStreamLimited));
}

TEST(TcpSweep, WantedAfterAStreamLimitedOrCpuBoundResult) {
  ProbeRecord r;
  r.success = true;
  r.verdicts = {{Verdict::kStreamLimited, false}, {Verdict::kCpuBound, false}};
  EXPECT_FALSE(WantsSweep(r));
  r.verdicts[Verdict::kCpuBound] = true;
  EXPECT_TRUE(WantsSweep(r));
  r.verdicts = {{Verdict::kStreamLimited, true}};
  EXPECT_TRUE(WantsSweep(r));
  r.success = false;  // A failed run's verdicts are last time's.
  EXPECT_FALSE(WantsSweep(r));
}

TEST(StorageComparisons, AskTheStorageProbeForTheComparedMode) {
  StorageLadderSettings s;
  s.directory = "/data";
  s.size_bytes = 1ull << 30;
  auto buffered = StorageComparisonOptions(Rung::kStorageReadBuffered, s);
  EXPECT_FALSE(buffered.direct);
  EXPECT_EQ(buffered.queue_depth, 32u);
  auto shared = StorageComparisonOptions(Rung::kStorageReadSharedFile, s);
  auto separate = StorageComparisonOptions(Rung::kStorageReadSeparateFiles, s);
  EXPECT_EQ(shared.jobs, kStorageComparisonJobs);
  EXPECT_EQ(shared.files, 0u);
  EXPECT_EQ(separate.jobs, shared.jobs);
  EXPECT_EQ(separate.files, kStorageComparisonJobs);
  // The same bytes over one file and over J files.
  EXPECT_EQ(separate.size * separate.files, shared.size);
  auto read1 = StorageComparisonOptions(Rung::kStorageReadDepth1, s);
  auto write1 = StorageComparisonOptions(Rung::kStorageWriteDepth1, s);
  EXPECT_EQ(read1.queue_depth, 1u);
  EXPECT_EQ(read1.jobs, 1u);
  EXPECT_EQ(read1.mode, storage::Mode::kRead);
  EXPECT_EQ(write1.queue_depth, 1u);
  EXPECT_EQ(write1.mode, storage::Mode::kWrite);
  EXPECT_TRUE(read1.direct);
}

}  // namespace
}  // namespace fabric
