#include "active-probes/tcp/session_request.h"

#include "active-probes/tcp/unsent_limit.h"

namespace fabric::probe {

Message RequestToMessage(const SessionRequest& r) {
  Message m;
  m.verb = "TEST";
  m.Set("up", r.up).Set("down", r.down).Set("duration_ms", r.duration_ms);
  m.Set("warmup_ms", r.warmup_ms).Set("mode", std::string(SendModeName(r.mode)));
  m.Set("block", r.block).Set("rcvbuf", r.peer_rcvbuf).Set("sndbuf", r.peer_sndbuf);
  m.Set("rblock", r.recv_block);
  if (r.unsent_limit) m.Set("unsent", *r.unsent_limit);
  return m;
}

Result<SessionRequest> RequestFromMessage(const Message& m) {
  if (m.verb != "TEST") return MakeError("expected TEST, got " + m.verb);
  SessionRequest r;
  struct F {
    const char* key;
    uint64_t max;
    uint64_t* wide;
    uint32_t* narrow;
  };
  for (F f :
       {F{"up", 1u << 20, nullptr, &r.up}, F{"down", 1u << 20, nullptr, &r.down},
        F{"duration_ms", 1ull << 40, &r.duration_ms, nullptr},
        F{"warmup_ms", 1ull << 40, &r.warmup_ms, nullptr}, F{"block", 1u << 30, nullptr, &r.block},
        F{"rcvbuf", 1u << 30, nullptr, &r.peer_rcvbuf},
        F{"sndbuf", 1u << 30, nullptr, &r.peer_sndbuf}}) {
    auto v = m.Uint(f.key);
    if (!v.ok()) return Unexpected{v.error()};
    if (*v > f.max) return MakeError(std::string("TEST: ") + f.key + " out of range");
    if (f.wide) *f.wide = *v;
    if (f.narrow) *f.narrow = static_cast<uint32_t>(*v);
  }
  // Optional: requesters before it was added do not send it (0: the default).
  if (m.Get("rblock")) {
    auto v = m.Uint("rblock");
    if (!v.ok()) return Unexpected{v.error()};
    if (*v > (4u << 20) || (*v != 0 && *v < 1024)) return MakeError("TEST: rblock out of range");
    r.recv_block = static_cast<uint32_t>(*v);
  }
  if (m.Get("unsent")) {
    auto v = m.Uint("unsent");
    if (!v.ok()) return Unexpected{v.error()};
    if (!UnsentLimitAllowed(*v)) return MakeError("TEST: unsent out of range");
    r.unsent_limit = static_cast<uint32_t>(*v);
  }
  auto mode = ParseSendMode(m.Get("mode").value_or(""));
  if (!mode.ok()) return Unexpected{mode.error()};
  r.mode = *mode;
  return r;
}

}  // namespace fabric::probe
