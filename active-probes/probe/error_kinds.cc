#include "active-probes/probe/error_kinds.h"

#include <array>

#include "common/json.h"

namespace fabric::probe {
namespace {

// Exit statuses, JSON kinds and reason labels are interfaces (scripts, the
// e2e tests, alert rules on reason=...): change a row only with them. The
// JSON kinds of the RDMA codes keep fabric_probe rdma's hyphenated spelling.
// clang-format off
constexpr std::array<ErrorKind, 18> kErrorKinds = {{
  {ErrorCode::kOther,        1,  "error",       "error",          ""},
  {ErrorCode::kAbsent,       1,  "error",       "error",          ""},
  {ErrorCode::kUsage,        2,  "usage",       "error",          ""},
  {ErrorCode::kBusy,         3,  "busy",        "busy",           "peer's responder stayed busy"},
  {ErrorCode::kAuth,         4,  "auth",        "auth",           "authentication failed (shared secret)"},
  {ErrorCode::kRefused,      5,  "refused",     "refused",        "connection refused (is the responder running?)"},
  {ErrorCode::kUnreachable,  6,  "unreachable", "unreachable",    "peer unreachable"},
  {ErrorCode::kTimeout,      7,  "timeout",     "timeout",        "timed out"},
  {ErrorCode::kRejected,     8,  "rejected",    "rejected",       "rejected by the responder's limits"},
  {ErrorCode::kNoDevice,     9,  "no-device",   "no_device",      "no RDMA device on this node"},
  {ErrorCode::kNoActivePort, 10, "no-port",     "no_active_port", "no active RDMA port"},
  // The responder went away mid-run: no status of its own.
  {ErrorCode::kAborted,      1,  "aborted",     "aborted",        ""},
  {ErrorCode::kNoSpace,      1,  "no-space",    "no_space",       ""},
  {ErrorCode::kNoRoute,      1,  "no-route",    "no_route",       ""},
  {ErrorCode::kConfigChanged, 11, "config-changed", "config_changed", "not measured: an interface's MTU changed during the run (re-measured next round)"},
  {ErrorCode::kWindowMissed, 12, "window-missed", "window_missed", "not measured: the responder saw the window start late, its control messages delayed on the path (re-measured next round)"},
  {ErrorCode::kFleetMismatch, 13, "fleet-mismatch", "fleet_mismatch", "not measured: the peer plans with another fleet list (compare fabric_fleet_digest_info on both)"},
  // An interrupted run records nothing (so the reason is never exported); the
  // CLI exits 128 + the signal that stopped it.
  {ErrorCode::kInterrupted,  130, "interrupted", "interrupted",   ""},
}};
// clang-format on

}  // namespace

std::span<const ErrorKind> ErrorKinds() { return kErrorKinds; }

const ErrorKind& KindOf(ErrorCode code) {
  for (const auto& kind : kErrorKinds) {
    if (kind.code == code) return kind;
  }
  return kErrorKinds[0];  // Unreachable: the table has every code (tested).
}

const ErrorKind* KindOfReason(std::string_view reason) {
  for (const auto& kind : kErrorKinds) {
    if (kind.reason == reason) return &kind;
  }
  return nullptr;
}

int ExitStatus(const Error& error, int stop_signal) {
  if (stop_signal != 0) return 128 + stop_signal;
  return KindOf(error.code).exit_status;
}

std::string ErrorToJson(const Error& error) {
  return "{\"error\":{\"kind\":" + JsonString(KindOf(error.code).json_kind) +
         ",\"message\":" + JsonString(error.message) + "}}\n";
}

}  // namespace fabric::probe
