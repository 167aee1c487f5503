// Options for a responder that a test runs inside its own process: on 127.0.0.1, on a port the
// kernel picks (Responder::bound() says which), open to 127.0.0.0/8.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>

#include "active-probes/responder/responder.h"

namespace fabric::probe {

inline ResponderOptions LoopbackResponderOptions(std::string secret, uint32_t max_streams,
                                                 std::chrono::milliseconds idle_timeout) {
  ResponderOptions o;
  o.listen = {HostPort{"127.0.0.1", 0}};
  o.allow = *ParseCidrList("127.0.0.0/8");
  o.secret = std::move(secret);
  o.max_streams = max_streams;
  o.max_duration = std::chrono::milliseconds(3000);
  o.idle_timeout = idle_timeout;
  return o;
}

}  // namespace fabric::probe
