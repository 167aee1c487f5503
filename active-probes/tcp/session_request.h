// The TCP probe's TEST request: what the probe asks the responder to do. The
// responder checks it against its own limits before accepting.
#pragma once

#include <cstdint>
#include <optional>

#include "active-probes/control/message.h"
#include "active-probes/tcp/stream_io.h"
#include "common/result.h"

namespace fabric::probe {

struct SessionRequest {
  uint32_t up = 0;    // streams the probe sends on (indexes 0..up-1)
  uint32_t down = 0;  // streams the responder sends on (indexes up..up+down-1)
  uint64_t duration_ms = 0;
  uint64_t warmup_ms = 0;
  SendMode mode = SendMode::kSendfile;  // the responder's sender mode
  uint32_t block = 0;
  uint32_t recv_block = 0;   // bytes per receive call on the responder; 0 = its default
  uint32_t peer_rcvbuf = 0;  // SO_RCVBUF the responder sets on its data sockets; 0 = autotune
  uint32_t peer_sndbuf = 0;
  // TCP_NOTSENT_LOWAT on the responder's sending streams; 0 = the kernel's default; unset (a
  // requester from before it was added) = AutoUnsentLimit(down, block).
  std::optional<uint32_t> unsent_limit;

  uint32_t total() const { return up + down; }
};

Message RequestToMessage(const SessionRequest& r);
Result<SessionRequest> RequestFromMessage(const Message& m);

}  // namespace fabric::probe
