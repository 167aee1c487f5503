// Whether a full-size frame reaches a peer: an ICMP echo of exactly `mtu`
// bytes with Don't Fragment set (`ping -M do -s MTU-28`). A path where one
// end or a switch runs a smaller MTU drops it silently, which TCP's MSS
// negotiation would hide from every throughput test (field shape 13).
#pragma once

#include <chrono>
#include <string>

#include "common/result.h"
#include "common/stop_token.h"

namespace fabric {

// Ok(true): the reply came back. Ok(false): no reply within `timeout`, or the
// local stack refused the size (EMSGSIZE: the egress MTU is smaller). An
// error: the check itself could not run (no ICMP socket permission, ...), or
// a stop was requested while it waited (ErrorCode::kInterrupted).
Result<bool> JumboEcho(const std::string& address, int mtu, std::chrono::milliseconds timeout,
                       const StopToken& stop = {});

}  // namespace fabric
