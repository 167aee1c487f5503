// What each ErrorCode (common/error_code.h) means outside the code, in one
// table: the fabric_probe exit status, the `kind` of its JSON error, the
// `reason` label of fabric_probe_failure_info, and the words the ladder (page
// and `fabric_probe ladder`) says for a failed layer. The probes set codes
// where their errors are made; the CLI, the rung records and the ladder read
// this table, never an error's message.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "common/result.h"

namespace fabric::probe {

struct ErrorKind {
  ErrorCode code;
  // fabric_probe's exit status. A command stopped by a signal exits
  // 128 + the signal instead (130 SIGINT, 143 SIGTERM): see ExitStatus.
  int exit_status;
  std::string_view json_kind;  // {"error":{"kind":...}}
  std::string_view reason;     // fabric_probe_failure_info{reason=...}
  // The ladder's words for a layer whose last run failed this way; empty: it
  // says "failed (<reason>): <message>".
  std::string_view ladder_words;
};

// Every row, one per code.
std::span<const ErrorKind> ErrorKinds();
const ErrorKind& KindOf(ErrorCode code);
// The row of a recorded reason label (records and state files keep the
// label); nullptr for a label no code has.
const ErrorKind* KindOfReason(std::string_view reason);

// The exit status for `error`; `stop_signal` (0: none) is the signal that
// stopped the command, which wins whatever the error says.
int ExitStatus(const Error& error, int stop_signal = 0);
// {"error":{"kind":"busy","message":"..."}} and a newline.
std::string ErrorToJson(const Error& error);

}  // namespace fabric::probe
