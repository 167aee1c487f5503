// The responder's side of the RDMA probe, plugged into the shared Responder as
// a session kind (request verb RDMA_TEST): admission and authentication are
// the Responder's; this checks the request against the responder's limits,
// registers a memory region sized for the test (qps x size, remote-write
// only), sends its address and rkey over the authenticated control channel,
// accepts exactly the requested QPs from the authenticated peer carrying the
// session token, samples its port counters at the window marks and
// deregisters everything when the session ends.
#pragma once

#include <cstdint>
#include <string>

#include "active-probes/rdma/backend.h"
#include "active-probes/responder/responder.h"

namespace fabric::probe {

struct RdmaResponderOptions {
  std::string device;                      // serve only from this device; empty = any
  uint64_t max_region_bytes = 1ull << 30;  // largest memory region a session may ask for
};

// The backend must outlive the responder.
void AddRdmaSessionKind(ResponderOptions& options, RdmaBackend& backend,
                        RdmaResponderOptions rdma = {});

}  // namespace fabric::probe
