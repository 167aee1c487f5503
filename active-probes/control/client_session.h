// The requester's side of the control channel's opening: connect, HELLO,
// mutual HMAC authentication and the responder's admission answer (BUSY,
// not-allowed). Every probe kind (TCP, RDMA, ...) opens its session here, so
// they share one authentication and one set of error kinds.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "active-probes/control/conn.h"
#include "common/result.h"

namespace fabric::probe {

struct ClientSessionOptions {
  HostPort peer;
  std::string bind_address;  // source address; empty = the route's
  std::string secret;
  std::chrono::milliseconds timeout{5000};  // connect and each control message
  std::string probe = "tcp";                // HELLO's probe= field (informational)
  // Requested by the owner to abandon the session (kInterrupted errors), and
  // kept by the returned connection for the rest of the session.
  StopToken stop;
  // This node's fleet digest, sent in HELLO (empty: not sent). A responder
  // holding another answers ERR reason=fleet-mismatch: ErrorCode::kFleetMismatch.
  std::string fleet_digest;
  // Receives the responder's fleet digest (peer.host, digest) from its
  // CHALLENGE or its refusal: "" from a responder that sends none (an older
  // version, or `fabric_probe serve`), which is probed as before.
  std::function<void(const std::string&, const std::string&)> on_peer_fleet;
};

// "host:port" as errors and results print it.
std::string PeerText(const HostPort& p);

// An authenticated control connection. Errors carry ErrorCode::kRefused,
// kUnreachable, kTimeout, kAuth, kBusy (then *retry_ms holds the responder's
// hint), kFleetMismatch or kInterrupted.
Result<LineConn> OpenClientSession(const ClientSessionOptions& o, uint64_t* retry_ms);

// The responder closes the control connection once its session slot is free;
// waiting for that keeps the next session (a sweep's next run, a retry after a
// rejection) from finding it BUSY.
void WaitForClose(LineConn& conn);

}  // namespace fabric::probe
