// ErrorCode: why an operation failed, set where the error is made and carried
// by Error (common/result.h) through every layer above. What a code means to a
// user (the fabric_probe exit status, the JSON `kind`, the
// fabric_probe_failure_info reason label, the ladder's words) is one table,
// active-probes/probe/error_kinds.cc. Nothing classifies an error by its
// message, which is free text for people.
#pragma once

namespace fabric {

enum class ErrorCode {
  kOther,  // No more specific code: a plain failure.
  // The kernel or driver does not have it: not a failure (a collector reports
  // success with no samples), where a caller asks.
  kAbsent,
  kUsage,         // Bad flags or options.
  kRefused,       // The peer refused the connection, or closed it before admission.
  kUnreachable,   // The peer's name does not resolve, or nothing routes to it.
  kTimeout,       // The peer did not answer in time.
  kBusy,          // The peer's responder is serving another session.
  kAuth,          // The shared secret did not match.
  kRejected,      // The responder refused the request (its limits, an unknown session kind).
  kAborted,       // The peer went away mid-session (its connections closed or reset).
  kInterrupted,   // Our own stop request ended the work.
  kNoDevice,      // No RDMA device here, none with that name, or none on the source interface.
  kNoActivePort,  // The RDMA device's port is down: ours or the responder's.
  kNoSpace,       // The filesystem filled up, or has too little room to leave the reserve.
  kNoRoute,       // The kernel has no route to the peer.
  // The interface's configuration (its MTU) changed during the run: the connections agreed
  // their segment size under the old setting, so the numbers measure neither setting.
  kConfigChanged,
  // The responder's measuring window started too late to measure: its
  // window-start message reached it after most of the window (delayed on the
  // control connection, by loss on the path or a stalled host).
  kWindowMissed,
  // The peer plans with another fleet list (its digest differs from ours): probing it would
  // follow a plan the two sides do not share, so nothing runs until the lists agree.
  kFleetMismatch,
};

}  // namespace fabric
