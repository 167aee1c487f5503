// The typed tables of the probe seam: the error-kind table has one row per
// ErrorCode with the CLI's documented exit statuses, JSON kinds and reason
// labels; the rung table one row per Rung; the value catalogue one row per
// ProbeValue, named with its unit's suffix; names round-trip.
#include <gtest/gtest.h>

#include <set>

#include "active-probes/probe/error_kinds.h"
#include "active-probes/probe/rungs.h"
#include "active-probes/probe/values.h"

namespace fabric::probe {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

TEST(ErrorKinds, OneRowPerCode) {
  std::set<ErrorCode> codes;
  for (const auto& kind : ErrorKinds()) {
    EXPECT_TRUE(codes.insert(kind.code).second) << kind.reason << " twice";
    EXPECT_EQ(&KindOf(kind.code), &kind);
  }
  EXPECT_EQ(codes.size(), static_cast<size_t>(ErrorCode::kFleetMismatch) + 1);
}

TEST(ErrorKinds, ExitStatusesJsonKindsAndReasonsAreTheInterface) {
  struct Row {
    ErrorCode code;
    int exit_status;
    const char* json_kind;
    const char* reason;
  };
  const Row rows[] = {
      {ErrorCode::kOther, 1, "error", "error"},
      {ErrorCode::kUsage, 2, "usage", "error"},
      {ErrorCode::kBusy, 3, "busy", "busy"},
      {ErrorCode::kAuth, 4, "auth", "auth"},
      {ErrorCode::kRefused, 5, "refused", "refused"},
      {ErrorCode::kUnreachable, 6, "unreachable", "unreachable"},
      {ErrorCode::kTimeout, 7, "timeout", "timeout"},
      {ErrorCode::kRejected, 8, "rejected", "rejected"},
      {ErrorCode::kNoDevice, 9, "no-device", "no_device"},
      {ErrorCode::kNoActivePort, 10, "no-port", "no_active_port"},
      {ErrorCode::kAborted, 1, "aborted", "aborted"},
      {ErrorCode::kNoSpace, 1, "no-space", "no_space"},
      {ErrorCode::kConfigChanged, 11, "config-changed", "config_changed"},
      {ErrorCode::kWindowMissed, 12, "window-missed", "window_missed"},
      {ErrorCode::kFleetMismatch, 13, "fleet-mismatch", "fleet_mismatch"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.reason);
    EXPECT_EQ(KindOf(row.code).exit_status, row.exit_status);
    EXPECT_EQ(KindOf(row.code).json_kind, row.json_kind);
    EXPECT_EQ(KindOf(row.code).reason, row.reason);
    EXPECT_EQ(ExitStatus(Error{"x", row.code}), row.exit_status);
  }
  // A signal wins: 128 + SIGINT / SIGTERM.
  EXPECT_EQ(ExitStatus(Error{"x", ErrorCode::kInterrupted}, 2), 130);
  EXPECT_EQ(ExitStatus(Error{"x", ErrorCode::kInterrupted}, 15), 143);
  EXPECT_EQ(ExitStatus(Error{"x", ErrorCode::kTimeout}, 15), 143);
  EXPECT_EQ(ErrorToJson(Error{"peer \"b\" busy", ErrorCode::kBusy}),
            "{\"error\":{\"kind\":\"busy\",\"message\":\"peer \\\"b\\\" busy\"}}\n");
  EXPECT_EQ(KindOfReason("no_active_port")->code, ErrorCode::kNoActivePort);
  EXPECT_EQ(KindOfReason("no-port"), nullptr);
}

TEST(Rungs, OneRowPerRungLaddersFirst) {
  std::set<Rung> rungs;
  bool past_ladder = false;
  for (const auto& info : Rungs()) {
    EXPECT_TRUE(rungs.insert(info.id).second) << info.label;
    EXPECT_EQ(RungFromLabel(info.label), info.id);
    EXPECT_EQ(RungLabel(info.id), info.label);
    EXPECT_FALSE(info.directions.empty()) << info.label;
    if (!info.ladder_layer) past_ladder = true;
    EXPECT_FALSE(past_ladder && info.ladder_layer) << info.label << " after a non-ladder row";
  }
  EXPECT_EQ(rungs.size(), static_cast<size_t>(Rung::kStorageWriteDepth1) + 1);
  EXPECT_EQ(RungFromLabel("tcp"), std::nullopt);
  EXPECT_EQ(RungLabel(Rung::kStorageWrite), "storage_write");
  EXPECT_FALSE(InfoOf(Rung::kPath).ladder_layer);
  EXPECT_FALSE(InfoOf(Rung::kTcpSingle).ceiling);
}

TEST(Values, OneRowPerValueNamedByItsUnit) {
  std::set<ProbeValue> values;
  for (const auto& info : ValueCatalogue()) {
    EXPECT_TRUE(values.insert(info.id).second) << info.name;
    EXPECT_EQ(ValueFromName(info.name), info.id);
    EXPECT_FALSE(info.help.empty()) << info.name;
    switch (info.unit) {
      case ValueUnit::kBytesPerSecond:
      case ValueUnit::kSeconds:
      case ValueUnit::kRatio:
        EXPECT_TRUE(EndsWith(info.name, "_" + std::string(UnitName(info.unit)))) << info.name;
        break;
      case ValueUnit::kBytes:
        EXPECT_TRUE(EndsWith(info.name, "bytes")) << info.name;
        break;
      default:
        EXPECT_FALSE(EndsWith(info.name, "_seconds") || EndsWith(info.name, "_ratio")) << info.name;
    }
  }
  EXPECT_EQ(values.size(), static_cast<size_t>(ProbeValue::kPathLineRate) + 1);
  EXPECT_EQ(ValueFromName("copy_throughput_bytes_per_second"), std::nullopt);
}

TEST(Verdicts, OneRowPerVerdictInNameOrder) {
  std::string last;
  for (const auto& info : Verdicts()) {
    EXPECT_EQ(VerdictFromName(info.name), info.id);
    EXPECT_LT(last, std::string(info.name));
    last = info.name;
  }
  EXPECT_EQ(Verdicts().size(), static_cast<size_t>(Verdict::kStreamLimited) + 1);
}

}  // namespace
}  // namespace fabric::probe
