// The TCP rungs' calibration, its pure half: the candidate table, the choice
// over measured figures (fake ones here) and when a path is due again.
#include "exporter/scheduled_probes/tcp_calibration.h"

#include <gtest/gtest.h>

#include <set>

namespace fabric {
namespace {

using probe::SendMode;

std::vector<TcpCandidateFigure> Figures(const std::vector<double>& rates) {
  std::vector<TcpCandidateFigure> out;
  auto candidates = TcpCalibrationCandidates();
  for (size_t i = 0; i < rates.size(); ++i) out.push_back({candidates[i], rates[i]});
  return out;
}

TEST(TcpCalibrationTest, TheTableHoldsSendfileAndCopyAtThreeBlockSizes) {
  std::set<std::pair<std::string, uint32_t>> seen;
  for (const TcpCandidate& c : TcpCalibrationCandidates()) {
    seen.insert({std::string(probe::SendModeName(c.mode)), c.block});
    auto found = FindTcpCandidate(probe::SendModeName(c.mode), c.block);
    ASSERT_TRUE(found);
    EXPECT_EQ(*found, c);
  }
  EXPECT_EQ(seen, (std::set<std::pair<std::string, uint32_t>>{{"sendfile", 131072},
                                                              {"sendfile", 262144},
                                                              {"sendfile", 1048576},
                                                              {"copy", 131072},
                                                              {"copy", 262144},
                                                              {"copy", 1048576}}));
  // The default is a candidate; what is not in the table is not found.
  const TcpCandidate d = DefaultTcpCandidate();
  EXPECT_TRUE(FindTcpCandidate(probe::SendModeName(d.mode), d.block));
  EXPECT_FALSE(FindTcpCandidate("copy", 65536));
  EXPECT_FALSE(FindTcpCandidate("zerocopy", 262144));
}

TEST(TcpCalibrationTest, ChoosesTheFastestMeasuredCandidate) {
  // Copy with 1 MiB blocks three times sendfile's figure, as on one loopback.
  auto figures = Figures({1.9e9, 1.95e9, 2.0e9, 4.1e9, 5.0e9, 5.9e9});
  EXPECT_EQ(ChooseTcpCandidate(figures), (TcpCandidate{SendMode::kCopy, 1 << 20}));
  // Sendfile fastest (a NIC path where the copy costs the sender's core).
  figures = Figures({3.0e9, 3.3e9, 3.1e9, 2.9e9, 3.2e9, 3.0e9});
  EXPECT_EQ(ChooseTcpCandidate(figures), (TcpCandidate{SendMode::kSendfile, 256 << 10}));
}

TEST(TcpCalibrationTest, ATieGoesToTheEarlierCandidateAndNothingMovedIsNoChoice) {
  auto figures = Figures({1e9, 2e9, 2e9, 1e9, 2e9, 0});
  EXPECT_EQ(ChooseTcpCandidate(figures), (TcpCandidate{SendMode::kSendfile, 256 << 10}));
  EXPECT_FALSE(ChooseTcpCandidate(Figures({0, 0, 0, 0, 0, 0})));
  EXPECT_FALSE(ChooseTcpCandidate({}));
}

TEST(TcpCalibrationTest, DueWhenNeverCalibratedStaleOrStepped) {
  TcpCalibrationSettings settings;  // Daily.
  TcpCalibration last;
  last.timestamp_seconds = 1.7e9;
  last.chosen = {SendMode::kCopy, 1 << 20};
  EXPECT_TRUE(TcpCalibrationDue(nullptr, 1.7e9, settings));
  EXPECT_FALSE(TcpCalibrationDue(&last, 1.7e9 + 3600, settings));
  EXPECT_FALSE(TcpCalibrationDue(&last, 1.7e9 + 86399, settings));
  EXPECT_TRUE(TcpCalibrationDue(&last, 1.7e9 + 86400, settings));
  EXPECT_TRUE(TcpCalibrationDue(&last, 1.7e9 - 2 * 86400, settings));  // Clock stepped back.
  TcpCalibration unknown = last;
  unknown.chosen = {SendMode::kZerocopy, 1 << 20};  // Not a candidate (any more).
  EXPECT_TRUE(TcpCalibrationDue(&unknown, 1.7e9 + 1, settings));
  settings.enabled = false;
  EXPECT_FALSE(TcpCalibrationDue(nullptr, 1.7e9, settings));
}

TEST(TcpCalibrationTest, ProbeTimeIsOneCandidateRunEach) {
  TcpCalibrationSettings settings;
  EXPECT_DOUBLE_EQ(TcpCalibrationSeconds(settings), 6);
  settings.candidate_seconds = 0.5;
  EXPECT_DOUBLE_EQ(TcpCalibrationSeconds(settings), 3);
  settings.enabled = false;
  EXPECT_DOUBLE_EQ(TcpCalibrationSeconds(settings), 0);
}

}  // namespace
}  // namespace fabric
