// The comparison runs' pure halves: the stream sweep's record from its steps,
// when a tcp_multi result asks for a sweep, the rung's sessions the TCP
// comparisons repeat (like for like), the copy run's record with its sendfile
// reference, and what each storage comparison asks of the storage probe.
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

probe::Measurement Record(Direction direction, double rate, bool contended = false) {
  probe::Measurement m;
  m.direction = direction;
  m.values[ProbeValue::kThroughput] = rate;
  m.values[ProbeValue::kStreams] = 8;
  m.verdicts = {{Verdict::kContended, contended}, {Verdict::kCpuBound, false}};
  return m;
}

TEST(TcpComparisons, RepeatTheRungsSessions) {
  TcpLadderSettings settings;
  ResultStore store;
  // Calibrated, before the rung has calibrated both directions: nothing to repeat.
  ASSERT_TRUE(settings.calibration.enabled);
  EXPECT_FALSE(TcpRungSessions(Rung::kTcpMulti, settings, "b", store));
  TcpCalibration send, receive;
  send.timestamp_seconds = receive.timestamp_seconds = 1.8e9;
  send.chosen = {probe::SendMode::kCopy, 1024 * 1024};
  receive.chosen = {probe::SendMode::kSendfile, 256 * 1024};
  store.SetCalibration({Rung::kTcpMulti, "b", Direction::kSend}, send);
  EXPECT_FALSE(TcpRungSessions(Rung::kTcpMulti, settings, "b", store));
  store.SetCalibration({Rung::kTcpMulti, "b", Direction::kReceive}, receive);
  // Each direction alone with its own calibrated mode and block size, as the rung runs.
  auto calibrated = TcpRungSessions(Rung::kTcpMulti, settings, "b", store);
  ASSERT_TRUE(calibrated);
  EXPECT_EQ(*calibrated, (std::vector<TcpSession>{{Direction::kSend, send.chosen},
                                                  {Direction::kReceive, receive.chosen}}));
  EXPECT_FALSE(TcpRungSessions(Rung::kTcpMulti, settings, "c", store));
  // Uncalibrated: the rung's one session of both directions, the default candidate.
  settings.calibration.enabled = false;
  EXPECT_EQ(*TcpRungSessions(Rung::kTcpMulti, settings, "b", store),
            (std::vector<TcpSession>{{Direction::kBoth, DefaultTcpCandidate()}}));
}

TEST(TcpComparisons, RecordsSayWhatRan) {
  std::vector<probe::Measurement> measured(1);
  LabelSession(measured, {Direction::kSend, {probe::SendMode::kCopy, 1024 * 1024}});
  EXPECT_EQ(measured[0].info,
            (std::map<std::string, std::string>{
                {"mode", "copy"}, {"block_bytes", "1048576"}, {"directions", "one_at_a_time"}}));
  EXPECT_EQ(SessionInfo({Direction::kBoth, DefaultTcpCandidate()}).at("directions"),
            "both_at_once");
}

TEST(TcpComparisons, CopyRunRunsTheModeTheRungDidNot) {
  constexpr uint32_t kMiB = 1024 * 1024;
  EXPECT_EQ(CopyComparisonRuns({Direction::kSend, {probe::SendMode::kSendfile, kMiB}}),
            probe::SendMode::kCopy);
  // Calibration chose copy: the rung is the copy run, so the comparison runs sendfile
  // (copy against copy would be no comparison).
  EXPECT_EQ(CopyComparisonRuns({Direction::kSend, {probe::SendMode::kCopy, kMiB}}),
            probe::SendMode::kSendfile);
}

TEST(TcpComparisons, CopyRecordCarriesItsSendfileReference) {
  // Shape 4: copies at 27% of sendfile, the send direction alone with the rung's 1 MiB.
  const TcpSession rung{Direction::kSend, {probe::SendMode::kSendfile, 1024 * 1024}};
  auto m = CopyComparisonMeasurements(rung, {Record(Direction::kSend, 6.642e9)},
                                      {Record(Direction::kSend, 24.6e9)});
  ASSERT_EQ(m.size(), 1u);
  EXPECT_DOUBLE_EQ(m[0].values.at(ProbeValue::kThroughput), 6.642e9);
  EXPECT_DOUBLE_EQ(m[0].values.at(ProbeValue::kReferenceThroughput), 24.6e9);
  EXPECT_EQ(m[0].info, (std::map<std::string, std::string>{{"mode", "copy"},
                                                           {"reference_mode", "sendfile"},
                                                           {"rung_mode", "sendfile"},
                                                           {"block_bytes", "1048576"},
                                                           {"directions", "one_at_a_time"}}));
  EXPECT_FALSE(m[0].verdicts.at(Verdict::kContended));
  // Both directions at once: each record its own direction's reference.
  const TcpSession both{Direction::kBoth, {probe::SendMode::kCopy, 256 * 1024}};
  auto pair = CopyComparisonMeasurements(
      both, {Record(Direction::kSend, 5e9), Record(Direction::kReceive, 6e9)},
      {Record(Direction::kReceive, 12e9), Record(Direction::kSend, 10e9)});
  ASSERT_EQ(pair.size(), 2u);
  for (const auto& r : pair) {
    EXPECT_DOUBLE_EQ(r.values.at(ProbeValue::kReferenceThroughput),
                     r.direction == Direction::kSend ? 10e9 : 12e9);
    EXPECT_EQ(r.info.at("rung_mode"), "copy");
    EXPECT_EQ(r.info.at("directions"), "both_at_once");
  }
  // A contended reference is no reference: the record is contended.
  auto shared = CopyComparisonMeasurements(rung, {Record(Direction::kSend, 6.642e9)},
                                           {Record(Direction::kSend, 9.8e9, true)});
  EXPECT_TRUE(shared[0].verdicts.at(Verdict::kContended));
  // No reference run of that direction: no reference value.
  auto alone = CopyComparisonMeasurements(rung, {Record(Direction::kSend, 6.642e9)},
                                          {Record(Direction::kReceive, 9.8e9)});
  EXPECT_EQ(alone[0].values.count(ProbeValue::kReferenceThroughput), 0u);
}

TEST(TcpComparisons, SweepStreamsFollowTheDirectionPattern) {
  // Both directions at once share the responder's limit; one at a time, each has all of it.
  const TcpCandidate c = DefaultTcpCandidate();
  EXPECT_EQ(SweepStreamLimit({{Direction::kBoth, c}}, 64), 32u);
  EXPECT_EQ(SweepStreamLimit({{Direction::kSend, c}, {Direction::kReceive, c}}, 64), 64u);
  // The budget counts every session: one run of the other mode, or each step.
  TcpLadderSettings s;
  EXPECT_DOUBLE_EQ(CopyComparisonSeconds(s), 2 * TcpRunSeconds(s));
  EXPECT_DOUBLE_EQ(SweepSeconds(s, 3), 2 * 3 * TcpRunSeconds(s));
  s.calibration.enabled = false;
  EXPECT_DOUBLE_EQ(CopyComparisonSeconds(s), TcpRunSeconds(s));
}

TEST(StorageComparisons, BufferedReadCarriesTheDirectReadOfItsSlot) {
  storage::StorageProbeResult buffered, direct;
  buffered.direct = false;
  buffered.jobs = 1;
  buffered.bytes_per_second = 4.16e9;
  direct.bytes_per_second = 10.4e9;
  auto m = StorageComparisonMeasurement(buffered, &direct);
  EXPECT_DOUBLE_EQ(m.values.at(ProbeValue::kThroughput), 4.16e9);
  EXPECT_DOUBLE_EQ(m.values.at(ProbeValue::kReferenceThroughput), 10.4e9);
  EXPECT_DOUBLE_EQ(m.values.at(ProbeValue::kStreams), 1);
  EXPECT_EQ(m.info.at("direct"), "false");
  // O_DIRECT fell back (tmpfs): the "reference" read the cache too, so there is none.
  direct.direct = false;
  EXPECT_EQ(StorageComparisonMeasurement(buffered, &direct)
                .values.count(ProbeValue::kReferenceThroughput),
            0u);
  // The other comparisons carry none.
  EXPECT_EQ(StorageComparisonMeasurement(buffered).values.count(ProbeValue::kReferenceThroughput),
            0u);
}

TEST(StorageComparisons, BufferedReadCarriesItsDirectReferenceTime) {
  StorageLadderSettings s;
  EXPECT_DOUBLE_EQ(StorageComparisonSeconds(Rung::kStorageReadBuffered, s),
                   2 * StorageRunSeconds(s));
  EXPECT_DOUBLE_EQ(StorageComparisonSeconds(Rung::kStorageReadDepth1, s), StorageRunSeconds(s));
}

}  // namespace
}  // namespace fabric
