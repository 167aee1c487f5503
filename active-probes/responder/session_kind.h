// Extension point for probe kinds beyond TCP: a kind registers a handler for
// its request verb (e.g. RDMA_TEST) in ResponderOptions::kinds. The responder
// runs admission (allow-list, one session at a time) and authentication as for
// TCP, then hands the authenticated control connection and the request to the
// handler, which applies its own limits and runs the session.
#pragma once

#include <sys/socket.h>

#include <functional>
#include <map>
#include <string>

#include "active-probes/control/conn.h"
#include "active-probes/control/message.h"

namespace fabric::probe {

struct ResponderOptions;

// How a kind's session ended (the responder counts these like TCP sessions).
enum class SessionKindOutcome { kCompleted, kFailed, kRejected };

struct SessionContext {
  const ResponderOptions& options;
  LineConn& control;
  const sockaddr_storage& peer;  // the authenticated requester
  const Message& request;        // the first message after AUTH_OK
  // Moves the session's deadline (BUSY's retry hint) once the request's length
  // is known.
  std::function<void(SteadyClock::time_point)> set_deadline;
};

using SessionKindHandler = std::function<SessionKindOutcome(SessionContext&)>;
// Request verb -> handler.
using SessionKinds = std::map<std::string, SessionKindHandler>;

}  // namespace fabric::probe
