// Round trips timed by TCP connects: a SYN to the peer's responder port and
// its SYN-ACK (or RST) back, all of one round's targets in flight at once.
// This needs no new protocol and opens no session: the connection is reset
// as soon as it is up, so the responder's session slot, stream and byte
// limits are never touched; its accept loop drops a connection that closes
// before saying HELLO, and its allow-list still applies. The time includes
// the peer kernel's handshake and this thread's wake-up, a few microseconds
// either, well below a path's change worth an alert.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "common/stop_token.h"

namespace fabric {

struct ConnectTarget {
  std::string address;  // numeric IPv4 or IPv6
  uint16_t port = 0;
};

struct ConnectResult {
  enum class Kind {
    kAnswered,    // SYN-ACK (connected) or RST (refused): the path carried both ways
    kLost,        // no answer by the timeout, or the path unreachable (ICMP, no route)
    kLocalError,  // this host could not send (no socket, source address not here): says
                  // nothing about the path, counted nowhere
    kStopped,     // the owner stopped the round first: counted nowhere
  };
  Kind kind = Kind::kStopped;
  double rtt_seconds = 0;  // kAnswered only
  bool refused = false;    // kAnswered by an RST: no listener on the port
  int error = 0;           // errno of kLost (0 = timeout) and kLocalError
};

// One connect per target, concurrently; results in the targets' order.
// bind_address (numeric, optional) is the source address: the fleet's own,
// so the route and the peer's allow-list see the fabric address.
std::vector<ConnectResult> TimeConnects(const std::vector<ConnectTarget>& targets,
                                        const std::string& bind_address,
                                        std::chrono::microseconds timeout, const StopToken& stop);

}  // namespace fabric
