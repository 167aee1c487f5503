// The librdmacm entry points the backend imports: event channels, ids,
// address and route resolution onto the emulated device (by source address),
// connect/listen/accept/reject/establish/disconnect over a TCP connection,
// and the QP attributes rdma_cm computes for each transition.
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "emu.h"

using fabric::emu::Channel;
using fabric::emu::CmId;
using fabric::emu::CmState;
using fabric::emu::Conn;
using fabric::emu::Emu;
using fabric::emu::Emulation;
using fabric::emu::Errno;
using fabric::emu::Event;
using fabric::emu::Frame;
using fabric::emu::FrameType;
using Lock = std::lock_guard<std::recursive_mutex>;

namespace {

CmId* Id(rdma_cm_id* pub) { return reinterpret_cast<CmId*>(pub); }

socklen_t AddrLen(const sockaddr* a) {
  return a->sa_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
}

bool IsWildcard(const sockaddr* a) {
  if (a->sa_family == AF_INET) {
    return reinterpret_cast<const sockaddr_in*>(a)->sin_addr.s_addr == htonl(INADDR_ANY);
  }
  const auto* in6 = reinterpret_cast<const sockaddr_in6*>(a);
  return std::memcmp(&in6->sin6_addr, &in6addr_any, sizeof(in6addr_any)) == 0;
}

// Whether any interface here has the address (bind would succeed).
bool LocalAddress(const sockaddr* a) {
  int fd = ::socket(a->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_storage s{};
  std::memcpy(&s, a, AddrLen(a));
  if (s.ss_family == AF_INET) reinterpret_cast<sockaddr_in*>(&s)->sin_port = 0;
  if (s.ss_family == AF_INET6) reinterpret_cast<sockaddr_in6*>(&s)->sin6_port = 0;
  bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&s), AddrLen(a)) == 0;
  ::close(fd);
  return ok;
}

uint32_t RandomPsn() {
  static std::mt19937 rng{std::random_device{}()};
  return rng() & 0xffffff;
}

Frame MakeFrame(FrameType t) {
  Frame f;
  f.type = static_cast<uint32_t>(t);
  return f;
}

// Pending events for an id that is going away are dropped with it.
void DropEvents(Channel* ch, CmId* id) {
  for (auto it = ch->queue.begin(); it != ch->queue.end();) {
    if ((*it)->pub.id == &id->pub) {
      char b;
      (void)!::read(ch->pub.fd, &b, 1);
      delete *it;
      it = ch->queue.erase(it);
    } else {
      ++it;
    }
  }
}

bool Connected(CmState s) {
  return s == CmState::kEstablished || s == CmState::kAccepted || s == CmState::kRepReceived;
}

}  // namespace

extern "C" {

const char* rdma_event_str(rdma_cm_event_type event) {
  switch (event) {
    case RDMA_CM_EVENT_ADDR_RESOLVED:
      return "RDMA_CM_EVENT_ADDR_RESOLVED";
    case RDMA_CM_EVENT_ADDR_ERROR:
      return "RDMA_CM_EVENT_ADDR_ERROR";
    case RDMA_CM_EVENT_ROUTE_RESOLVED:
      return "RDMA_CM_EVENT_ROUTE_RESOLVED";
    case RDMA_CM_EVENT_ROUTE_ERROR:
      return "RDMA_CM_EVENT_ROUTE_ERROR";
    case RDMA_CM_EVENT_CONNECT_REQUEST:
      return "RDMA_CM_EVENT_CONNECT_REQUEST";
    case RDMA_CM_EVENT_CONNECT_RESPONSE:
      return "RDMA_CM_EVENT_CONNECT_RESPONSE";
    case RDMA_CM_EVENT_CONNECT_ERROR:
      return "RDMA_CM_EVENT_CONNECT_ERROR";
    case RDMA_CM_EVENT_UNREACHABLE:
      return "RDMA_CM_EVENT_UNREACHABLE";
    case RDMA_CM_EVENT_REJECTED:
      return "RDMA_CM_EVENT_REJECTED";
    case RDMA_CM_EVENT_ESTABLISHED:
      return "RDMA_CM_EVENT_ESTABLISHED";
    case RDMA_CM_EVENT_DISCONNECTED:
      return "RDMA_CM_EVENT_DISCONNECTED";
    case RDMA_CM_EVENT_DEVICE_REMOVAL:
      return "RDMA_CM_EVENT_DEVICE_REMOVAL";
    case RDMA_CM_EVENT_MULTICAST_JOIN:
      return "RDMA_CM_EVENT_MULTICAST_JOIN";
    case RDMA_CM_EVENT_MULTICAST_ERROR:
      return "RDMA_CM_EVENT_MULTICAST_ERROR";
    case RDMA_CM_EVENT_ADDR_CHANGE:
      return "RDMA_CM_EVENT_ADDR_CHANGE";
    case RDMA_CM_EVENT_TIMEWAIT_EXIT:
      return "RDMA_CM_EVENT_TIMEWAIT_EXIT";
  }
  return "UNKNOWN EVENT";
}

rdma_event_channel* rdma_create_event_channel(void) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  // No device: rdma_cm's character device is missing, as on a host without
  // an RDMA driver.
  if (!e.available()) {
    errno = ENODEV;
    return nullptr;
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return nullptr;
  auto* ch = new Channel();
  ch->pub.fd = fds[0];
  ch->write_fd = fds[1];
  ++e.live_channels;
  return &ch->pub;
}

void rdma_destroy_event_channel(rdma_event_channel* pub) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  Channel* ch = reinterpret_cast<Channel*>(pub);
  if (ch->ids > 0) {
    e.notes.push_back("rdma_destroy_event_channel with " + std::to_string(ch->ids) +
                      " ids still on it");
  }
  for (Event* ev : ch->queue) delete ev;
  ::close(ch->pub.fd);
  ::close(ch->write_fd);
  delete ch;
  --e.live_channels;
}

int rdma_create_id(rdma_event_channel* channel, rdma_cm_id** id, void* context,
                   rdma_port_space ps) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  if (channel == nullptr) {
    e.notes.push_back("synchronous rdma_cm ids are not emulated");
    return Errno(EOPNOTSUPP);
  }
  if (ps != RDMA_PS_TCP) {
    e.notes.push_back("only RDMA_PS_TCP is emulated");
    return Errno(EOPNOTSUPP);
  }
  auto* c = new CmId();
  c->channel = reinterpret_cast<Channel*>(channel);
  ++c->channel->ids;
  c->pub.channel = channel;
  c->pub.context = context;
  c->pub.ps = ps;
  c->pub.qp_type = IBV_QPT_RC;
  e.ids.push_back(c);
  ++e.live_ids;
  *id = &c->pub;
  return 0;
}

int rdma_destroy_id(rdma_cm_id* pub) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  CmId* id = Id(pub);
  if (id->unacked_events > 0) {
    // librdmacm would block here until they are acked: a hang on real hardware.
    e.notes.push_back("rdma_destroy_id with " + std::to_string(id->unacked_events) +
                      " events not acked (rdma_cm would block)");
  }
  if (id->listen_fd >= 0) e.to_close.push_back(id->listen_fd);
  for (Conn* c : e.conns) {
    if (c->listener == id) {
      c->listener = nullptr;
      c->close_when_flushed = true;
    }
  }
  if (Conn* c = id->conn; c != nullptr) {
    // Destroying a connected id sends the DREQ the CM owes its peer.
    if (Connected(id->state)) e.Send(c, MakeFrame(FrameType::kDreq));
    e.DetachConn(c);
  }
  DropEvents(id->channel, id);
  --id->channel->ids;
  std::erase(e.ids, id);
  delete id;
  --e.live_ids;
  e.Wake();
  return 0;
}

int rdma_get_cm_event(rdma_event_channel* pub, rdma_cm_event** event) {
  Channel* ch = reinterpret_cast<Channel*>(pub);
  for (;;) {
    char b;
    ssize_t n = ::read(ch->pub.fd, &b, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n != 1) return -1;  // EAGAIN on a non-blocking channel, as librdmacm
    Emulation& e = Emu();
    Lock lock(e.mu);
    if (ch->queue.empty()) continue;  // dropped with its id
    Event* ev = ch->queue.front();
    ch->queue.pop_front();
    // Retrieved and not yet acked: what rdma_destroy_id waits for.
    for (CmId* id : e.ids) {
      if (&id->pub == ev->pub.id) ++id->unacked_events;
    }
    *event = &ev->pub;
    return 0;
  }
}

int rdma_ack_cm_event(rdma_cm_event* pub) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  Event* ev = reinterpret_cast<Event*>(pub);
  for (CmId* id : e.ids) {
    if (&id->pub == pub->id) --id->unacked_events;
  }
  delete ev;
  return 0;
}

int rdma_bind_addr(rdma_cm_id* pub, sockaddr* addr) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  CmId* id = Id(pub);
  if (id->state != CmState::kIdle || addr == nullptr) return Errno(EINVAL);
  if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6) return Errno(EAFNOSUPPORT);
  if (!IsWildcard(addr)) {
    if (!LocalAddress(addr)) return Errno(EADDRNOTAVAIL);
    // An address on an interface without an RDMA device.
    if (!e.HoldsAddress(addr)) return Errno(ENODEV);
    pub->verbs = e.context();
    pub->port_num = 1;
  }
  int fd = ::socket(addr->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (::bind(fd, addr, AddrLen(addr)) != 0) {
    int err = errno;
    ::close(fd);
    return Errno(err);
  }
  socklen_t len = sizeof(pub->route.addr.src_storage);
  ::getsockname(fd, &pub->route.addr.src_addr, &len);
  id->listen_fd = fd;
  id->state = CmState::kBound;
  return 0;
}

int rdma_listen(rdma_cm_id* pub, int backlog) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  CmId* id = Id(pub);
  if (id->state != CmState::kBound) return Errno(EINVAL);
  if (::listen(id->listen_fd, backlog > 0 ? backlog : 16) != 0) return -1;
  id->backlog = backlog;
  id->state = CmState::kListening;
  e.StartThread();
  e.Wake();
  return 0;
}

uint16_t rdma_get_src_port(rdma_cm_id* pub) {
  const sockaddr* a = &pub->route.addr.src_addr;
  if (a->sa_family == AF_INET) return reinterpret_cast<const sockaddr_in*>(a)->sin_port;
  if (a->sa_family == AF_INET6) return reinterpret_cast<const sockaddr_in6*>(a)->sin6_port;
  return 0;
}

int rdma_resolve_addr(rdma_cm_id* pub, sockaddr* src, sockaddr* dst, int timeout_ms) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  (void)timeout_ms;
  CmId* id = Id(pub);
  if ((id->state != CmState::kIdle && id->state != CmState::kBound) || dst == nullptr) {
    return Errno(EINVAL);
  }
  if (dst->sa_family != AF_INET && dst->sa_family != AF_INET6) return Errno(EAFNOSUPPORT);
  sockaddr_storage source{};
  if (src != nullptr && !IsWildcard(src)) {
    if (src->sa_family != dst->sa_family) return Errno(EINVAL);
    std::memcpy(&source, src, AddrLen(src));
  } else {
    // The route's source address, as the kernel would pick it.
    int fd = ::socket(dst->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    socklen_t len = sizeof(source);
    if (fd < 0 || ::connect(fd, dst, AddrLen(dst)) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&source), &len) != 0) {
      if (fd >= 0) ::close(fd);
      e.QueueEvent(id->channel, id, RDMA_CM_EVENT_ADDR_ERROR, -ENETUNREACH);
      return 0;
    }
    ::close(fd);
  }
  std::memcpy(&pub->route.addr.dst_storage, dst, AddrLen(dst));
  std::memcpy(&pub->route.addr.src_storage, &source, sizeof(source));
  if (source.ss_family == AF_INET)
    reinterpret_cast<sockaddr_in*>(&pub->route.addr.src_storage)->sin_port = 0;
  if (!e.HoldsAddress(reinterpret_cast<sockaddr*>(&source))) {
    // The source address is on no RDMA device.
    e.QueueEvent(id->channel, id, RDMA_CM_EVENT_ADDR_ERROR, -ENODEV);
    return 0;
  }
  pub->verbs = e.context();
  pub->port_num = 1;
  id->state = CmState::kAddrResolved;
  e.QueueEvent(id->channel, id, RDMA_CM_EVENT_ADDR_RESOLVED, 0);
  return 0;
}

int rdma_resolve_route(rdma_cm_id* pub, int timeout_ms) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  (void)timeout_ms;
  CmId* id = Id(pub);
  if (id->state != CmState::kAddrResolved) return Errno(EINVAL);
  id->state = CmState::kRouteResolved;
  pub->route.num_paths = 1;
  e.QueueEvent(id->channel, id, RDMA_CM_EVENT_ROUTE_RESOLVED, 0);
  return 0;
}

int rdma_connect(rdma_cm_id* pub, rdma_conn_param* param) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  CmId* id = Id(pub);
  if (id->state != CmState::kRouteResolved || param == nullptr) return Errno(EINVAL);
  // Without an rdma_cm-owned QP the caller names its own.
  if (pub->qp == nullptr && e.qps.find(param->qp_num) == e.qps.end()) return Errno(EINVAL);
  if (param->private_data_len > fabric::emu::kReqPrivateData) return Errno(EINVAL);
  if ((param->responder_resources != RDMA_MAX_RESP_RES &&
       param->responder_resources > fabric::emu::kMaxRdAtomic) ||
      (param->initiator_depth != RDMA_MAX_INIT_DEPTH &&
       param->initiator_depth > fabric::emu::kMaxRdAtomic)) {
    return Errno(EINVAL);
  }
  const sockaddr* dst = &pub->route.addr.dst_addr;
  int fd = ::socket(dst->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  // Leave from the resolved source address: that is the requester's address
  // the responder sees.
  if (::bind(fd, &pub->route.addr.src_addr, AddrLen(dst)) != 0) {
    ::close(fd);
    return -1;
  }
  if (::connect(fd, dst, AddrLen(dst)) != 0) {
    int err = errno;
    ::close(fd);
    if (err == ECONNREFUSED) {
      // Nobody listens on that service: the remote CM rejects.
      id->state = CmState::kRejected;
      e.QueueEvent(id->channel, id, RDMA_CM_EVENT_REJECTED, 8);
    } else {
      id->state = CmState::kDisconnected;
      e.QueueEvent(id->channel, id, RDMA_CM_EVENT_UNREACHABLE, -err);
    }
    return 0;
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  Conn* c = e.NewConn(fd, id);
  c->remote_gid = Emulation::GidOf(dst);
  id->conn = c;
  id->local_qpn = param->qp_num;
  id->local_psn = RandomPsn();
  id->retry_count = std::min<uint8_t>(param->retry_count, 7);
  id->rnr_retry = std::min<uint8_t>(param->rnr_retry_count, 7);
  id->responder_resources = param->responder_resources;
  id->initiator_depth = param->initiator_depth;
  id->state = CmState::kConnecting;
  Frame f = MakeFrame(FrameType::kReq);
  f.qpn = param->qp_num;
  f.psn = id->local_psn;
  f.mtu = e.ActiveMtu();
  f.flags = param->responder_resources | (static_cast<uint32_t>(param->initiator_depth) << 8);
  e.Send(c, f, param->private_data, param->private_data_len);
  return 0;
}

int rdma_accept(rdma_cm_id* pub, rdma_conn_param* param) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  CmId* id = Id(pub);
  if (id->state != CmState::kReqReceived || id->conn == nullptr) return Errno(EINVAL);
  if (param == nullptr || (pub->qp == nullptr && e.qps.find(param->qp_num) == e.qps.end())) {
    return Errno(EINVAL);
  }
  if (param->private_data_len > fabric::emu::kRepPrivateData) return Errno(EINVAL);
  id->local_qpn = param->qp_num;
  id->retry_count = std::min<uint8_t>(param->retry_count, 7);
  id->rnr_retry = std::min<uint8_t>(param->rnr_retry_count, 7);
  id->state = CmState::kAccepted;
  Frame f = MakeFrame(FrameType::kRep);
  f.qpn = param->qp_num;
  f.psn = id->local_psn;
  f.mtu = e.ActiveMtu();
  e.Send(id->conn, f, param->private_data, param->private_data_len);
  return 0;
}

int rdma_reject(rdma_cm_id* pub, const void* private_data, uint8_t private_data_len) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  CmId* id = Id(pub);
  if (id->state != CmState::kReqReceived || id->conn == nullptr) return Errno(EINVAL);
  if (private_data_len > fabric::emu::kRejPrivateData) return Errno(EINVAL);
  id->state = CmState::kRejected;
  Frame f = MakeFrame(FrameType::kRej);
  f.status = 28;  // IB_CM_REJ_CONSUMER_DEFINED
  e.Send(id->conn, f, private_data, private_data_len);
  return 0;
}

int rdma_establish(rdma_cm_id* pub) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  CmId* id = Id(pub);
  if (id->state != CmState::kRepReceived) return Errno(EINVAL);
  id->state = CmState::kEstablished;
  e.Send(id->conn, MakeFrame(FrameType::kRtu));
  return 0;
}

int rdma_disconnect(rdma_cm_id* pub) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  CmId* id = Id(pub);
  if (!Connected(id->state)) return Errno(EINVAL);
  id->state = CmState::kDisconnecting;
  e.Send(id->conn, MakeFrame(FrameType::kDreq));
  return 0;
}

int rdma_init_qp_attr(rdma_cm_id* pub, ibv_qp_attr* attr, int* mask) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  CmId* id = Id(pub);
  if (pub->verbs == nullptr) return Errno(EINVAL);
  ibv_qp_state want = attr->qp_state;
  std::memset(attr, 0, sizeof(*attr));
  attr->qp_state = want;
  Conn* c = id->conn;
  // A connection request or reply has been exchanged.
  bool exchanged =
      c != nullptr && (id->state == CmState::kReqReceived || id->state == CmState::kAccepted ||
                       id->state == CmState::kRepReceived || id->state == CmState::kEstablished);
  switch (want) {
    case IBV_QPS_INIT:
      *mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
      attr->pkey_index = 0;
      attr->port_num = pub->port_num;
      // The CM grants remote write once a connection is being made (and read
      // with responder resources); before that, nothing.
      attr->qp_access_flags = 0;
      if (exchanged) {
        attr->qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
        if (id->responder_resources > 0) {
          attr->qp_access_flags |= IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
        }
      }
      return 0;
    case IBV_QPS_RTR: {
      if (!exchanged) return Errno(EINVAL);
      *mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
              IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
      attr->path_mtu = std::min(e.ActiveMtu(), c->remote_mtu);
      attr->dest_qp_num = c->remote_qpn;
      attr->rq_psn = c->remote_psn;
      attr->max_dest_rd_atomic = id->responder_resources == RDMA_MAX_RESP_RES
                                     ? fabric::emu::kMaxRdAtomic
                                     : id->responder_resources;
      attr->min_rnr_timer = 12;
      attr->ah_attr.is_global = 1;
      attr->ah_attr.port_num = pub->port_num;
      attr->ah_attr.grh.dgid = c->remote_gid;
      attr->ah_attr.grh.hop_limit = 64;
      int sgid = e.GidIndexOf(Emulation::GidOf(&pub->route.addr.src_addr));
      attr->ah_attr.grh.sgid_index = static_cast<uint8_t>(sgid < 0 ? 0 : sgid);
      return 0;
    }
    case IBV_QPS_RTS:
      if (!exchanged) return Errno(EINVAL);
      *mask = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
              IBV_QP_MAX_QP_RD_ATOMIC;
      attr->timeout = 14;
      attr->retry_cnt = id->retry_count;
      attr->rnr_retry = id->rnr_retry;
      attr->sq_psn = id->local_psn;
      attr->max_rd_atomic = id->initiator_depth == RDMA_MAX_INIT_DEPTH ? fabric::emu::kMaxRdAtomic
                                                                       : id->initiator_depth;
      return 0;
    default:
      return Errno(EINVAL);
  }
}

}  // extern "C"
