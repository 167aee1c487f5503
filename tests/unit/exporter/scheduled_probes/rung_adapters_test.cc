// The rung adapters (exporter/scheduled_probes/{rdma,tcp,storage}_ladder_probe)
// through the probe seam against a real responder on 127.0.0.1 (the RDMA data
// path is the fake backend; sysfs roots are fixture trees): what each fault
// becomes in the ResultStore. A port that is down is no_active_port whether it
// is ours or the responder's.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <thread>

#include "active-probes/rdma/rdma_session.h"
#include "active-probes/responder/responder.h"
#include "exporter/scheduled_probes/probe_adapter.h"
#include "exporter/scheduled_probes/rdma_ladder_probe.h"
#include "exporter/scheduled_probes/storage_comparison_probe.h"
#include "exporter/scheduled_probes/storage_ladder_probe.h"
#include "exporter/scheduled_probes/tcp_comparison_probe.h"
#include "exporter/scheduled_probes/tcp_ladder_probe.h"
#include "tests/unit/active-probes/probe/probe_test_context.h"
#include "tests/unit/active-probes/rdma/fake_rdma_backend.h"
#include "tests/unit/test_dir.h"

namespace fabric {
namespace {

using probe::Direction;
using probe::ProbeValue;
using probe::Rung;

constexpr char kSecret[] = "rung-adapter-secret-0123456789ab";

std::string FixtureSys(const std::string& name) {
  return std::string(FABRIC_SOURCE_DIR) + "/tests/fixtures/rdma-" + name + "/sys";
}

class RungAdapterTest : public ::testing::Test {
 protected:
  void StartResponder(std::string sysfs = FixtureSys("loopback"),
                      probe::RdmaResponderOptions rdma = {}) {
    probe::ResponderOptions o;
    o.listen = {probe::HostPort{"127.0.0.1", 0}};
    o.allow = *probe::ParseCidrList("127.0.0.0/8");
    o.secret = kSecret;
    o.max_streams = 8;
    o.max_duration = std::chrono::milliseconds(3000);
    o.idle_timeout = std::chrono::milliseconds(1000);
    o.root = SysRoot("/proc", std::move(sysfs));
    probe::AddRdmaSessionKind(o, backend_, rdma);
    responder_ = std::make_unique<probe::Responder>(o);
    ASSERT_TRUE(responder_->Start().ok());
    port_ = responder_->bound()[0].port;
  }

  // One RDMA rung run from a node whose sysfs is `local_sysfs`.
  std::vector<ProbeRecord> RunRdma(const std::string& local_sysfs, RdmaLadderSettings settings = {},
                                   const std::string& secret = kSecret) {
    settings.enabled = true;
    settings.qps = 2;
    settings.size = 4096;
    settings.tx_depth = 8;
    settings.duration_seconds = 0.2;
    settings.warmup_seconds = 0.05;
    RdmaRungProbe rung(settings, secret, port_, self_, peer_, &backend_);
    fabric::testing::TestContext local(SysRoot("/proc", local_sysfs));
    ResultStore store;
    outcome_ = RunAndRecord(rung, local.context(), store);
    return store.Snapshot();
  }

  std::vector<ProbeRecord> RunTcp(Rung rung, const std::string& secret = kSecret) {
    TcpLadderSettings settings;
    settings.enabled = true;
    settings.duration_seconds = 0.2;
    settings.warmup_seconds = 0.05;
    settings.streams = 2;
    settings.port = port_;
    settings.secret = secret;
    TcpRungProbe probe(rung, settings, self_, peer_);
    fabric::testing::TestContext local;
    ResultStore store;
    outcome_ = RunAndRecord(probe, local.context(), store);
    return store.Snapshot();
  }

  FleetNode self_{"node-a", "127.0.0.1", "", 0};
  FleetNode peer_{"node-b", "127.0.0.1", "", 0};
  probe::testing::FakeRdmaBackend backend_;
  std::unique_ptr<probe::Responder> responder_;
  uint16_t port_ = 1;  // Nothing listens there until StartResponder.
  ProbeOutcome outcome_ = ProbeOutcome::kIdle;
};

void ExpectFailure(const std::vector<ProbeRecord>& records, const std::string& reason,
                   size_t directions = 1) {
  ASSERT_EQ(records.size(), directions);
  for (const auto& r : records) {
    EXPECT_FALSE(r.success);
    EXPECT_EQ(r.failure_reason, reason) << r.failure_detail;
    EXPECT_FALSE(r.failure_detail.empty());
    EXPECT_TRUE(r.values.empty());
  }
}

TEST_F(RungAdapterTest, RdmaSuccessIsOneSendRecordWithTheRungsValues) {
  StartResponder();
  auto records = RunRdma(FixtureSys("loopback"));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_TRUE(records[0].success) << records[0].failure_detail;
  EXPECT_EQ(records[0].key, (ProbeKey{Rung::kRdma, "node-b", Direction::kSend}));
  EXPECT_GT(records[0].values.at(ProbeValue::kThroughput), 0);
  EXPECT_DOUBLE_EQ(records[0].values.at(ProbeValue::kStreams), 2);
  EXPECT_EQ(outcome_, ProbeOutcome::kSuccess);
}

TEST_F(RungAdapterTest, RdmaOurPortDownIsNoActivePort) {
  StartResponder();
  RdmaLadderSettings settings;
  settings.device = "mlx5_1";  // Its port is down in the fixture.
  ExpectFailure(RunRdma(FixtureSys("two-devices"), settings), "no_active_port");
  EXPECT_EQ(outcome_, ProbeOutcome::kFailure);
}

TEST_F(RungAdapterTest, RdmaTheRespondersPortDownIsNoActivePort) {
  StartResponder(FixtureSys("loopback-down"));
  auto records = RunRdma(FixtureSys("loopback"));
  ExpectFailure(records, "no_active_port");
  EXPECT_NE(records[0].failure_detail.find("responder"), std::string::npos);
}

TEST_F(RungAdapterTest, RdmaNoDeviceHereOrThere) {
  StartResponder();
  ExpectFailure(RunRdma(FixtureSys("two-devices") + "/nonexistent"), "no_device");
  // Devices here, none on the interface the control connection uses (lo).
  ExpectFailure(RunRdma(FixtureSys("two-devices")), "no_device");
}

TEST_F(RungAdapterTest, RdmaRefusedAuthAndRejected) {
  ExpectFailure(RunRdma(FixtureSys("loopback")), "refused");  // Nothing listens.
  probe::RdmaResponderOptions small;
  small.max_region_bytes = 4096;
  StartResponder(FixtureSys("loopback"), small);
  ExpectFailure(RunRdma(FixtureSys("loopback"), {}, "not-the-secret-at-all-000000000"), "auth");
  ExpectFailure(RunRdma(FixtureSys("loopback")), "rejected");  // 2 x 4 KiB over the limit.
}

TEST_F(RungAdapterTest, RdmaStoppedRecordsNothing) {
  StartResponder();
  // The stop comes mid-window (the run would last 2.5 s): the run ends early
  // and the adapter records nothing, so the previous result stands.
  RdmaLadderSettings settings;
  settings.qps = 2;
  settings.size = 4096;
  settings.tx_depth = 8;
  settings.duration_seconds = 2.5;
  settings.warmup_seconds = 0.05;
  RdmaRungProbe rung(settings, kSecret, port_, self_, peer_, &backend_);
  fabric::testing::TestContext local(SysRoot("/proc", FixtureSys("loopback")));
  ResultStore store;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    local.stop.RequestStop();
  });
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(RunAndRecord(rung, local.context(), store), ProbeOutcome::kFailure);
  stopper.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(2000));
  auto records = store.Snapshot();
  EXPECT_TRUE(records.empty()) << records[0].failure_reason << ": " << records[0].failure_detail;
}

TEST_F(RungAdapterTest, TcpSuccessRecordsBothDirections) {
  StartResponder();
  auto records = RunTcp(Rung::kTcpMulti);
  ASSERT_EQ(records.size(), 2u);
  for (const auto& r : records) {
    EXPECT_TRUE(r.success) << r.failure_detail;
    EXPECT_EQ(r.key.probe, Rung::kTcpMulti);
    EXPECT_GT(r.values.at(ProbeValue::kThroughput), 0);
    EXPECT_DOUBLE_EQ(r.values.at(ProbeValue::kStreams), 2);
  }
  EXPECT_EQ(records[0].key.direction, Direction::kReceive);
  EXPECT_EQ(records[1].key.direction, Direction::kSend);
}

// Issue 42 item 6: the path's line rate is the slower end's (a 200 GbE node
// probing a 25 GbE peer runs on a 25 GbE path); unknown when either end
// reports no speed, never this end's alone.
TEST(TcpMeasurementsTest, PathLineRateIsTheSlowerEnd) {
  probe::TcpProbeResult r;
  r.directions.resize(1);
  r.directions[0].direction = Direction::kSend;
  r.link_bits_per_second = 200e9;
  r.responder_link_bits_per_second = 25e9;
  EXPECT_DOUBLE_EQ(TcpMeasurements(r)[0].values.at(ProbeValue::kPathLineRate), 3.125e9);
  r.responder_link_bits_per_second = 0;  // veth, virtio: no speed
  EXPECT_EQ(TcpMeasurements(r)[0].values.count(ProbeValue::kPathLineRate), 0u);
}

// Calibrated, each direction runs the candidate that measured fastest, and
// the records say which; the calibration is remembered (not run again before
// it is due). Asserts the choice against the figures measured, not any rate.
TEST_F(RungAdapterTest, TcpCalibratedRungRunsTheFastestMeasuredCandidateEachWay) {
  StartResponder();
  TcpLadderSettings settings;
  settings.enabled = true;
  settings.duration_seconds = 0.2;
  settings.warmup_seconds = 0.05;
  settings.port = port_;
  settings.secret = kSecret;
  settings.calibration.candidate_seconds = 0.2;
  ResultStore store;
  TcpRungProbe probe(Rung::kTcpSingle, settings, self_, peer_, &store);
  fabric::testing::TestContext local;
  ASSERT_EQ(RunAndRecord(probe, local.context(), store), ProbeOutcome::kSuccess);
  const auto records = store.Snapshot();
  ASSERT_EQ(records.size(), 2u);
  std::map<Direction, double> calibrated_at;
  for (const ProbeRecord& r : records) {
    ASSERT_TRUE(r.success) << r.failure_detail;
    auto c = store.Calibration(r.key);
    ASSERT_TRUE(c) << probe::DirectionName(r.key.direction);
    auto candidates = TcpCalibrationCandidates();
    ASSERT_EQ(c->measured.size(), candidates.size());
    for (size_t i = 0; i < candidates.size(); ++i) {
      EXPECT_EQ(c->measured[i].candidate, candidates[i]);
      EXPECT_GT(c->measured[i].bytes_per_second, 0);
    }
    EXPECT_EQ(c->chosen, ChooseTcpCandidate(c->measured));
    EXPECT_EQ(r.info.at("mode"), probe::SendModeName(c->chosen.mode));
    EXPECT_EQ(r.info.at("block_bytes"), std::to_string(c->chosen.block));
    EXPECT_EQ(r.info.at("directions"), "one_at_a_time");
    EXPECT_DOUBLE_EQ(r.values.at(ProbeValue::kStreams), 1);
    calibrated_at[r.key.direction] = c->timestamp_seconds;
  }
  // Not due again: the second run uses what the first one found.
  ASSERT_EQ(RunAndRecord(probe, local.context(), store), ProbeOutcome::kSuccess);
  for (const auto& [key, c] : store.Calibrations()) {
    EXPECT_EQ(c.timestamp_seconds, calibrated_at.at(key.direction));
  }
}

// The comparison runs after a calibrated multi-stream rung repeat its
// sessions: each direction alone with the block size calibrated for it. The
// copy run compares copy with sendfile, one of the two being the rung's own
// run of the meeting (its figure carried unchanged), the other run now; the
// sweep runs the rung's mode and block size. Asserts what ran, no rate.
TEST_F(RungAdapterTest, TcpComparisonsRepeatTheCalibratedRungsSessions) {
  StartResponder();
  TcpLadderSettings settings;
  settings.enabled = true;
  settings.duration_seconds = 0.2;
  settings.warmup_seconds = 0.05;
  settings.streams = 2;
  settings.port = port_;
  settings.secret = kSecret;
  settings.calibration.candidate_seconds = 0.2;
  ResultStore store;
  fabric::testing::TestContext local;
  const double start = local.context().clock.WallSeconds();
  TcpRungProbe rung(Rung::kTcpMulti, settings, self_, peer_, &store);
  ASSERT_EQ(RunAndRecord(rung, local.context(), store), ProbeOutcome::kSuccess);
  const auto sessions = TcpRungSessions(Rung::kTcpMulti, settings, peer_.name, store);
  ASSERT_TRUE(sessions);
  ASSERT_EQ(sessions->size(), 2u);
  auto results = RungResultsSince(store, peer_.name, start);
  ASSERT_TRUE(results);
  // A later meeting's comparison does not take this meeting's results.
  EXPECT_FALSE(RungResultsSince(store, peer_.name, local.context().clock.WallSeconds() + 60));

  TcpCopyProbe copy(settings, *sessions, *results, self_, peer_);
  ASSERT_EQ(RunAndRecord(copy, local.context(), store), ProbeOutcome::kSuccess);
  for (const TcpSession& session : *sessions) {
    const auto rung_record = store.Find({Rung::kTcpMulti, peer_.name, session.direction});
    const auto record = store.Find({Rung::kTcpMultiCopy, peer_.name, session.direction});
    ASSERT_TRUE(rung_record && record && record->success) << record->failure_detail;
    EXPECT_EQ(record->info.at("mode"), "copy");
    EXPECT_EQ(record->info.at("reference_mode"), "sendfile");
    EXPECT_EQ(record->info.at("rung_mode"), rung_record->info.at("mode"));
    EXPECT_EQ(record->info.at("block_bytes"), rung_record->info.at("block_bytes"));
    EXPECT_EQ(record->info.at("directions"), "one_at_a_time");
    const double copied = record->values.at(ProbeValue::kThroughput);
    const double reference = record->values.at(ProbeValue::kReferenceThroughput);
    EXPECT_EQ(session.candidate.mode == probe::SendMode::kCopy ? copied : reference,
              rung_record->values.at(ProbeValue::kThroughput));
    EXPECT_GT(std::min(copied, reference), 0);
  }

  TcpSweepProbe sweep(settings, *sessions, {1, 2}, self_, peer_);
  ASSERT_EQ(RunAndRecord(sweep, local.context(), store), ProbeOutcome::kSuccess);
  for (const TcpSession& session : *sessions) {
    const auto record = store.Find({Rung::kTcpMultiSweep, peer_.name, session.direction});
    ASSERT_TRUE(record && record->success);
    EXPECT_EQ(record->info, SessionInfo(session));
  }
}

// The buffered comparison carries the direct read of its own run.
TEST_F(RungAdapterTest, StorageBufferedComparisonCarriesItsDirectReference) {
  fabric::testing::TestDir dir;
  StorageLadderSettings settings;
  settings.enabled = true;
  settings.directory = dir.path().string();
  settings.size_bytes = 8 << 20;
  settings.reserve_bytes = 0;
  settings.duration_seconds = 0.1;
  settings.warmup_seconds = 0.02;
  StorageComparisonProbe buffered(Rung::kStorageReadBuffered, settings);
  fabric::testing::TestContext local;
  ResultStore store;
  ASSERT_EQ(RunAndRecord(buffered, local.context(), store), ProbeOutcome::kSuccess);
  const auto records = store.Snapshot();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].info.at("direct"), "false");
  EXPECT_GT(records[0].values.at(ProbeValue::kThroughput), 0);
  // Two runs in one record: each measured its warm-up and window.
  EXPECT_GE(records[0].duration_seconds, 2 * (0.1 + 0.02));
  if (records[0].values.count(ProbeValue::kReferenceThroughput) == 0) {
    GTEST_SKIP() << dir.path() << " has no O_DIRECT (tmpfs): no reference";
  }
  EXPECT_GT(records[0].values.at(ProbeValue::kReferenceThroughput), 0);
}

TEST_F(RungAdapterTest, TcpRefusedAuthAndUnreachable) {
  ExpectFailure(RunTcp(Rung::kTcpSingle), "refused", 2);
  StartResponder();
  ExpectFailure(RunTcp(Rung::kTcpMulti, "not-the-secret-at-all-000000000"), "auth", 2);
  peer_.address = "no-such-host.invalid";
  ExpectFailure(RunTcp(Rung::kTcpMulti), "unreachable", 2);
}

TEST_F(RungAdapterTest, StorageFullFilesystemIsNoSpace) {
  fabric::testing::TestDir dir;
  StorageLadderSettings settings;
  settings.enabled = true;
  settings.directory = dir.path().string();
  settings.size_bytes = 1 << 20;
  settings.reserve_bytes = 1ull << 62;  // More than any filesystem here has free.
  settings.duration_seconds = 0.1;
  settings.warmup_seconds = 0;
  StorageRungProbe write(Rung::kStorageWrite, settings);
  fabric::testing::TestContext local;
  ResultStore store;
  EXPECT_EQ(RunAndRecord(write, local.context(), store), ProbeOutcome::kFailure);
  auto records = store.Snapshot();
  ExpectFailure(records, "no_space");
  EXPECT_EQ(records[0].key, (ProbeKey{Rung::kStorageWrite, dir.path().string(), Direction::kNone}));

  settings.directory = dir.path().string() + "/missing";
  StorageRungProbe read(Rung::kStorageRead, settings);
  ResultStore other;
  RunAndRecord(read, local.context(), other);
  ExpectFailure(other.Snapshot(), "error");
}

}  // namespace
}  // namespace fabric
