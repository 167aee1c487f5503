// RAII owners for verbs and rdma_cm handles, and the few helpers both sides of
// the data path share. Only built with FABRIC_WITH_VERBS. Destruction order
// matters to verbs (QPs before their CQs and PD, MRs before the PD, ids before
// their event channel): owners declare members in construction order so the
// compiler destroys them in reverse.
#pragma once

#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <poll.h>
#include <rdma/rdma_cma.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "active-probes/control/conn.h"
#include "common/result.h"
#include "common/stop_token.h"

namespace fabric::probe::verbs {

struct ChannelDeleter {
  void operator()(rdma_event_channel* c) const { rdma_destroy_event_channel(c); }
};
struct PdDeleter {
  void operator()(ibv_pd* p) const { ibv_dealloc_pd(p); }
};
struct MrDeleter {
  void operator()(ibv_mr* m) const { ibv_dereg_mr(m); }
};
struct CqDeleter {
  void operator()(ibv_cq* c) const { ibv_destroy_cq(c); }
};
struct QpDeleter {
  void operator()(ibv_qp* q) const { ibv_destroy_qp(q); }
};
struct BufferDeleter {
  void operator()(void* p) const { std::free(p); }
};

using EventChannel = std::unique_ptr<rdma_event_channel, ChannelDeleter>;
using Pd = std::unique_ptr<ibv_pd, PdDeleter>;
using Mr = std::unique_ptr<ibv_mr, MrDeleter>;
using Cq = std::unique_ptr<ibv_cq, CqDeleter>;
using Qp = std::unique_ptr<ibv_qp, QpDeleter>;
using Buffer = std::unique_ptr<void, BufferDeleter>;

// An rdma_cm id; disconnects (if connected) and destroys it.
class CmId {
 public:
  CmId() = default;
  explicit CmId(rdma_cm_id* id) : id_(id) {}
  ~CmId() { Reset(); }
  CmId(const CmId&) = delete;
  CmId& operator=(const CmId&) = delete;
  CmId(CmId&& o) noexcept : id_(o.id_), connected_(o.connected_) {
    o.id_ = nullptr;
    o.connected_ = false;
  }
  CmId& operator=(CmId&& o) noexcept {
    if (this != &o) {
      Reset();
      id_ = o.id_;
      connected_ = o.connected_;
      o.id_ = nullptr;
      o.connected_ = false;
    }
    return *this;
  }
  rdma_cm_id* get() const { return id_; }
  rdma_cm_id* operator->() const { return id_; }
  void set_connected() { connected_ = true; }
  void Reset() {
    if (id_ == nullptr) return;
    if (connected_) rdma_disconnect(id_);
    rdma_destroy_id(id_);
    id_ = nullptr;
    connected_ = false;
  }

 private:
  rdma_cm_id* id_ = nullptr;
  bool connected_ = false;
};

// One connection: its id, CQ and QP. The QP goes first, then the CQ, then the
// id (members destroy in reverse order).
struct Connection {
  CmId id;
  Cq cq;
  Qp qp;
};

inline std::string Errno(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

// Why rdma_create_event_channel failed: without the rdma_cm device (no RDMA
// driver loaded, or a container without /dev/infiniband) that is "no device".
inline Unexpected NoCmError() {
  int err = errno;
  std::string why = Errno("rdma_create_event_channel");
  if (err == ENOENT || err == ENODEV || err == ENXIO) {
    return MakeError(ErrorCode::kNoDevice,
                     "no-device: no RDMA device (rdma_cm is not available: " + why + ")");
  }
  return MakeError(why);
}

inline uint32_t MtuBytes(ibv_mtu m) { return m >= IBV_MTU_256 ? 128u << m : 0; }
inline ibv_mtu MtuEnum(uint32_t bytes) {
  for (int e = IBV_MTU_4096; e > IBV_MTU_256; --e) {
    if ((128u << e) <= bytes) return static_cast<ibv_mtu>(e);
  }
  return IBV_MTU_256;
}

// The next event on the channel within the deadline. The event is acked
// before returning; what callers need from it is copied out.
struct CmEvent {
  rdma_cm_event_type type{};
  rdma_cm_id* id = nullptr;
  int status = 0;
  std::string private_data;
};

// A stop request cuts the wait short with kInterrupted.
inline Result<CmEvent> WaitEvent(rdma_event_channel* channel, SteadyClock::time_point deadline,
                                 const StopToken& stop = {}) {
  for (;;) {
    if (stop.stop_requested()) {
      return MakeError(ErrorCode::kInterrupted, "interrupted: waiting for an rdma_cm event");
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now())
                    .count();
    if (left < 0) left = 0;
    if (stop.stop_possible()) left = std::min<int64_t>(left, kStopSlice.count());
    pollfd p{channel->fd, POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return MakeError(Errno("poll rdma_cm channel"));
    if (n == 0 && SteadyClock::now() < deadline) continue;  // a stop-check slice
    if (n == 0) return MakeError(ErrorCode::kTimeout, "timeout: no rdma_cm event in time");
    rdma_cm_event* ev = nullptr;
    if (rdma_get_cm_event(channel, &ev) != 0) return MakeError(Errno("rdma_get_cm_event"));
    CmEvent out;
    out.type = ev->event;
    out.id = ev->id;
    out.status = ev->status;
    if (ev->param.conn.private_data != nullptr && ev->param.conn.private_data_len > 0) {
      out.private_data.assign(static_cast<const char*>(ev->param.conn.private_data),
                              ev->param.conn.private_data_len);
    }
    rdma_ack_cm_event(ev);
    return out;
  }
}

// Waits for `want` on the channel; any other event is an error naming it.
inline Status Expect(rdma_event_channel* channel, rdma_cm_event_type want,
                     SteadyClock::time_point deadline, const std::string& what,
                     const StopToken& stop = {}) {
  auto ev = WaitEvent(channel, deadline, stop);
  if (!ev.ok() && ev.error().code == ErrorCode::kInterrupted) return Unexpected{ev.error()};
  if (!ev.ok()) return MakeError(ev.error().code, ev.error().message + " (" + what + ")");
  if (ev->type != want) {
    const bool refused = ev->type == RDMA_CM_EVENT_REJECTED;
    const bool unreachable = ev->type == RDMA_CM_EVENT_ADDR_ERROR ||
                             ev->type == RDMA_CM_EVENT_ROUTE_ERROR ||
                             ev->type == RDMA_CM_EVENT_UNREACHABLE;
    const ErrorCode code = refused       ? ErrorCode::kRefused
                           : unreachable ? ErrorCode::kUnreachable
                                         : ErrorCode::kOther;
    const char* kind = refused ? "refused: " : unreachable ? "unreachable: " : "";
    return MakeError(code, kind + what + ": got " + rdma_event_str(ev->type) + " (status " +
                               std::to_string(ev->status) + ")");
  }
  return OkStatus();
}

// Moves a QP through INIT/RTR/RTS with the attributes rdma_cm computed, the
// path MTU clamped to `mtu_cap` (the smaller of both ends' active MTU).
inline Status ModifyQp(rdma_cm_id* id, ibv_qp* qp, ibv_qp_state state, ibv_mtu mtu_cap,
                       int access) {
  ibv_qp_attr attr{};
  int mask = 0;
  attr.qp_state = state;
  if (rdma_init_qp_attr(id, &attr, &mask) != 0) return MakeError(Errno("rdma_init_qp_attr"));
  if (state == IBV_QPS_INIT) {
    attr.qp_access_flags = access;
    mask |= IBV_QP_ACCESS_FLAGS;
  }
  if (state == IBV_QPS_RTR && (mask & IBV_QP_PATH_MTU) && attr.path_mtu > mtu_cap) {
    attr.path_mtu = mtu_cap;
  }
  if (int rc = ibv_modify_qp(qp, &attr, mask); rc != 0) {
    errno = rc;
    return MakeError(Errno("ibv_modify_qp"));
  }
  return OkStatus();
}

// The address with another port; an IPv4-mapped IPv6 address (what a
// dual-stack listener reports) becomes plain IPv4, which rdma_cm resolves to
// a RoCE v2 IPv4 GID.
inline sockaddr_storage WithPort(const sockaddr_storage& addr, uint16_t port) {
  sockaddr_storage out = addr;
  if (addr.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
      sockaddr_in in4{};
      in4.sin_family = AF_INET;
      std::memcpy(&in4.sin_addr, &in6->sin6_addr.s6_addr[12], 4);
      out = sockaddr_storage{};
      std::memcpy(&out, &in4, sizeof(in4));
    }
  }
  if (out.ss_family == AF_INET6) {
    reinterpret_cast<sockaddr_in6*>(&out)->sin6_port = htons(port);
  } else {
    reinterpret_cast<sockaddr_in*>(&out)->sin_port = htons(port);
  }
  return out;
}

}  // namespace fabric::probe::verbs
