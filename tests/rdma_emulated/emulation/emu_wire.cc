// The emulated adapter's engine: one thread per process that moves queued
// WRITEs onto the wire, places incoming WRITEs into registered memory after
// the responder's checks, turns ACKs and NAKs into completions, and drives
// the rdma_cm connection exchange (REQ, REP/REJ, RTU, DREQ/DREP).
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "emu.h"

namespace fabric::emu {
namespace {

// Bytes a connection may have queued for the socket before the engine stops
// taking WRITEs off that queue pair's send queue.
constexpr size_t kOutLimit = 1 << 20;
constexpr size_t kReadChunk = 256 << 10;

uint64_t Packets(uint64_t length, ibv_mtu mtu) {
  uint64_t m = 128u << mtu;
  return length == 0 ? 1 : (length + m - 1) / m;
}

}  // namespace

// Octets a WRITE of `length` puts on the wire at this path MTU.
uint64_t WireOctets(uint64_t length, ibv_mtu mtu) {
  return length + Packets(length, mtu) * kPacketHeaderOctets + kRethOctets;
}
uint64_t WirePackets(uint64_t length, ibv_mtu mtu) { return Packets(length, mtu); }

Conn* Emulation::NewConn(int fd, CmId* id) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  auto* c = new Conn();
  c->fd = fd;
  c->id = id;
  conns.push_back(c);
  StartThread();
  Wake();
  return c;
}

void Emulation::Send(Conn* c, const Frame& f, const void* payload, size_t len) {
  if (c == nullptr || c->dead) return;
  Frame h = f;
  h.length = static_cast<uint32_t>(len);
  c->out.append(reinterpret_cast<const char*>(&h), sizeof(h));
  if (len > 0) c->out.append(static_cast<const char*>(payload), len);
  Flush(c);
  if (c->out_off < c->out.size()) Wake();
}

void Emulation::Flush(Conn* c) {
  while (!c->dead && c->out_off < c->out.size()) {
    ssize_t n = ::send(c->fd, c->out.data() + c->out_off, c->out.size() - c->out_off,
                       MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      c->out_off += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      break;
    } else {
      ConnGone(c);
      return;
    }
  }
  if (c->out_off == c->out.size()) {
    c->out.clear();
    c->out_off = 0;
  } else if (c->out_off > kOutLimit) {
    c->out.erase(0, c->out_off);
    c->out_off = 0;
  }
}

void Emulation::QueueEvent(Channel* ch, CmId* id, rdma_cm_event_type type, int status,
                           const void* private_data, size_t len, CmId* listen) {
  if (ch == nullptr) return;
  auto* e = new Event();
  e->pub.id = &id->pub;
  e->pub.listen_id = listen != nullptr ? &listen->pub : nullptr;
  e->pub.event = type;
  e->pub.status = status;
  if (len > 0) std::memcpy(e->private_data, private_data, std::min(len, sizeof(e->private_data)));
  // A connect request always carries the whole private data field (zero
  // padded), as IB CM delivers it.
  if (type == RDMA_CM_EVENT_CONNECT_REQUEST) len = kReqPrivateData;
  if (len > 0) {
    e->pub.param.conn.private_data = e->private_data;
    e->pub.param.conn.private_data_len = static_cast<uint8_t>(std::min<size_t>(len, 255));
  }
  if (id->conn != nullptr) e->pub.param.conn.qp_num = id->conn->remote_qpn;
  e->pub.param.conn.retry_count = id->retry_count;
  e->pub.param.conn.rnr_retry_count = id->rnr_retry;
  ch->queue.push_back(e);
  char b = 1;
  (void)!::write(ch->write_fd, &b, 1);
}

void Emulation::PushCqe(Cq* cq, Qp* qp, const ibv_wc& wc) {
  if (cq->overflowed) return;
  if (static_cast<int>(cq->entries.size()) >= cq->depth) {
    // A completion with no room: the CQ is in error and so is every queue
    // pair that reports to it (IBV_EVENT_CQ_ERR; nothing more is delivered).
    cq->overflowed = true;
    cq->Update();
    async_events.push_back("IBV_EVENT_CQ_ERR");
    for (auto& [qpn, q] : qps) {
      if (q->send_cq == cq || q->recv_cq == cq) q->state = IBV_QPS_ERR;
    }
    return;
  }
  cq->entries.emplace_back(wc, qp);
  cq->Update();
}

void Emulation::CompleteWr(Qp* qp, const PendingWr& wr, ibv_wc_status status) {
  if (status != IBV_WC_SUCCESS) ++error_completions;
  if (status == IBV_WC_SUCCESS && !wr.signaled) {
    // Unsignaled: no completion; its slot frees now (hardware frees it when a
    // later signaled completion is polled).
    if (qp->outstanding > 0) --qp->outstanding;
    return;
  }
  ibv_wc wc{};
  wc.wr_id = wr.wr_id;
  wc.status = status;
  wc.opcode = IBV_WC_RDMA_WRITE;
  wc.byte_len = wr.length;
  wc.qp_num = qp->pub.qp_num;
  wc.vendor_err = status == IBV_WC_SUCCESS ? 0 : 0x81;
  PushCqe(qp->send_cq, qp, wc);
}

void Emulation::FailQp(Qp* qp, ibv_wc_status first) {
  if (qp->state != IBV_QPS_ERR) qp->state = IBV_QPS_ERR;
  std::deque<PendingWr> all;
  all.swap(qp->sent);
  for (auto& w : qp->queued) all.push_back(w);
  qp->queued.clear();
  bool first_done = false;
  for (const auto& w : all) {
    CompleteWr(qp, w, first_done ? IBV_WC_WR_FLUSH_ERR : first);
    first_done = true;
  }
}

void Emulation::BindQp(Qp* qp) {
  qp->conn = nullptr;
  for (Conn* c : conns) {
    if (c->id == nullptr || c->dead) continue;
    if (c->remote_qpn == qp->dest_qpn &&
        std::memcmp(c->remote_gid.raw, qp->dgid.raw, sizeof(qp->dgid.raw)) == 0) {
      qp->conn = c;
      return;
    }
  }
}

void Emulation::DetachConn(Conn* c) {
  c->id = nullptr;
  c->close_when_flushed = true;
  Wake();
}

void Emulation::ConnGone(Conn* c) {
  if (c->dead) return;
  c->dead = true;
  c->out.clear();
  c->out_off = 0;
  if (CmId* id = c->id; id != nullptr) {
    switch (id->state) {
      case CmState::kConnecting:
        id->state = CmState::kDisconnected;
        QueueEvent(id->channel, id, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT);
        break;
      case CmState::kRepReceived:
      case CmState::kReqReceived:
      case CmState::kAccepted:
      case CmState::kEstablished:
      case CmState::kDisconnecting:
        id->state = CmState::kDisconnected;
        QueueEvent(id->channel, id, RDMA_CM_EVENT_DISCONNECTED, 0);
        break;
      default:
        break;
    }
  }
  // The peer is gone: nothing outstanding will ever be acknowledged.
  for (auto& [qpn, qp] : qps) {
    if (qp->conn == c && (!qp->sent.empty() || !qp->queued.empty())) {
      FailQp(qp, IBV_WC_RETRY_EXC_ERR);
    }
  }
}

void Emulation::OnListen(CmId* id) {
  for (;;) {
    int fd = ::accept4(id->listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    Conn* c = NewConn(fd, nullptr);
    c->listener = id;
  }
}

void Emulation::OnReadable(Conn* c) {
  char buf[64 << 10];
  size_t got = 0;
  while (got < kReadChunk) {
    ssize_t n = ::recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
    if (n > 0) {
      c->in.append(buf, static_cast<size_t>(n));
      got += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) break;
    // Frames already read are still processed before the connection counts
    // as gone (a REJ or DREQ is often the last thing a peer sends).
    size_t off = 0;
    while (c->in.size() - off >= sizeof(Frame)) {
      Frame f;
      std::memcpy(&f, c->in.data() + off, sizeof(f));
      if (c->in.size() - off - sizeof(f) < f.length) break;
      OnFrame(c, f, c->in.data() + off + sizeof(f));
      off += sizeof(f) + f.length;
      if (c->dead) break;
    }
    c->in.clear();
    ConnGone(c);
    return;
  }
  size_t off = 0;
  while (!c->dead && c->in.size() - off >= sizeof(Frame)) {
    Frame f;
    std::memcpy(&f, c->in.data() + off, sizeof(f));
    if (c->in.size() - off - sizeof(f) < f.length) break;
    OnFrame(c, f, c->in.data() + off + sizeof(f));
    off += sizeof(f) + f.length;
  }
  if (!c->dead) c->in.erase(0, off);
}

void Emulation::OnFrame(Conn* c, const Frame& f, const char* payload) {
  CmId* id = c->id;
  switch (static_cast<FrameType>(f.type)) {
    case FrameType::kReq: {
      CmId* l = c->listener;
      c->listener = nullptr;
      if (l == nullptr || l->state != CmState::kListening) {
        Frame rej;
        rej.type = static_cast<uint32_t>(FrameType::kRej);
        rej.status = 8;  // IB_CM_REJ_INVALID_SERVICE_ID: nobody listens there
        Send(c, rej);
        c->close_when_flushed = true;
        return;
      }
      auto* child = new CmId();
      child->channel = l->channel;
      child->channel->ids++;
      child->pub.channel = &l->channel->pub;
      child->pub.verbs = context();
      child->pub.port_num = 1;
      child->pub.ps = l->pub.ps;
      child->pub.qp_type = IBV_QPT_RC;
      child->pub.context = l->pub.context;
      socklen_t len = sizeof(child->pub.route.addr.src_storage);
      ::getsockname(c->fd, &child->pub.route.addr.src_addr, &len);
      len = sizeof(child->pub.route.addr.dst_storage);
      // The requester's real address: what the responder's admission checks.
      ::getpeername(c->fd, &child->pub.route.addr.dst_addr, &len);
      child->state = CmState::kReqReceived;
      child->conn = c;
      child->local_psn = NewQpn() & 0xffffff;
      child->responder_resources = static_cast<uint8_t>(f.flags & 0xff);
      child->initiator_depth = static_cast<uint8_t>((f.flags >> 8) & 0xff);
      c->id = child;
      c->remote_qpn = f.qpn;
      c->remote_psn = f.psn;
      c->remote_mtu = static_cast<ibv_mtu>(f.mtu);
      c->remote_gid = GidOf(&child->pub.route.addr.dst_addr);
      ids.push_back(child);
      ++live_ids;
      QueueEvent(l->channel, child, RDMA_CM_EVENT_CONNECT_REQUEST, 0, payload,
                 std::min<size_t>(f.length, kReqPrivateData), l);
      return;
    }
    case FrameType::kRep:
      if (id == nullptr || id->state != CmState::kConnecting) return;
      c->remote_qpn = f.qpn;
      c->remote_psn = f.psn;
      c->remote_mtu = static_cast<ibv_mtu>(f.mtu);
      id->state = CmState::kRepReceived;
      QueueEvent(id->channel, id, RDMA_CM_EVENT_CONNECT_RESPONSE, 0, payload, f.length);
      return;
    case FrameType::kRej:
      if (id == nullptr || id->state != CmState::kConnecting) return;
      id->state = CmState::kRejected;
      QueueEvent(id->channel, id, RDMA_CM_EVENT_REJECTED, static_cast<int>(f.status), payload,
                 f.length);
      return;
    case FrameType::kRtu:
      if (id == nullptr || id->state != CmState::kAccepted) return;
      id->state = CmState::kEstablished;
      QueueEvent(id->channel, id, RDMA_CM_EVENT_ESTABLISHED, 0);
      return;
    case FrameType::kDreq: {
      Frame drep;
      drep.type = static_cast<uint32_t>(FrameType::kDrep);
      Send(c, drep);
      if (id == nullptr || id->state == CmState::kDisconnected) return;
      id->state = CmState::kDisconnected;
      QueueEvent(id->channel, id, RDMA_CM_EVENT_DISCONNECTED, 0);
      return;
    }
    case FrameType::kDrep:
      if (id == nullptr || id->state != CmState::kDisconnecting) return;
      id->state = CmState::kDisconnected;
      QueueEvent(id->channel, id, RDMA_CM_EVENT_DISCONNECTED, 0);
      return;
    case FrameType::kWrite:
      OnWrite(c, f, payload);
      return;
    case FrameType::kAck:
      OnAck(c, f);
      return;
  }
  notes.push_back("unknown frame type " + std::to_string(f.type));
}

void Emulation::OnWrite(Conn* c, const Frame& f, const char* payload) {
  Frame ack;
  ack.type = static_cast<uint32_t>(FrameType::kAck);
  ack.seq = f.seq;
  auto it = qps.find(f.qpn);
  Qp* qp = it == qps.end() ? nullptr : it->second;
  if (!port_active_ || qp == nullptr || qp->conn != c ||
      (qp->state != IBV_QPS_RTR && qp->state != IBV_QPS_RTS)) {
    // Dropped (link down, no such QP, QP not ready or in error): the
    // requester hears nothing and runs out of retries.
    ack.status = IBV_WC_RETRY_EXC_ERR;
    Send(c, ack);
    return;
  }
  ++writes_seen;
  Mr* mr = nullptr;
  if (auto m = mrs.find(f.rkey); m != mrs.end()) mr = m->second;
  bool in_range = mr != nullptr && f.addr >= MrAddr(mr) && f.length <= mr->pub.length &&
                  f.addr - MrAddr(mr) <= mr->pub.length - f.length;
  bool allowed = (qp->access & IBV_ACCESS_REMOTE_WRITE) && mr != nullptr && mr->pd == qp->pd &&
                 (mr->access & IBV_ACCESS_REMOTE_WRITE) && in_range;
  if (nak_from > 0 && writes_seen >= nak_from) allowed = false;
  if (!allowed) {
    // NAK (remote access error); the responder's QP goes to error too.
    ack.status = IBV_WC_REM_ACCESS_ERR;
    Send(c, ack);
    qp->state = IBV_QPS_ERR;
    async_events.push_back("IBV_EVENT_QP_ACCESS_ERR");
    return;
  }
  if (f.length > 0) std::memcpy(reinterpret_cast<void*>(f.addr), payload, f.length);
  mr->remote_bytes += f.length;
  ++writes_received;
  bytes_received += f.length;
  std::vector<std::pair<Counter, uint64_t>> adds = {
      {kRcvData, WireOctets(f.length, qp->path_mtu)},
      {kRcvPackets, WirePackets(f.length, qp->path_mtu)}};
  if (cnp_every > 0 && writes_received % cnp_every == 0) {
    ack.flags |= kAckCnp;
    adds.emplace_back(kNpCnpSent, 1);
  }
  if (oob_every > 0 && writes_received % oob_every == 0) adds.emplace_back(kOutOfBuffer, 1);
  AddCounters(adds);
  Send(c, ack);
}

void Emulation::OnAck(Conn* c, const Frame& f) {
  Qp* qp = nullptr;
  for (auto& [qpn, q] : qps) {
    if (q->conn == c && !q->sent.empty()) qp = q;
  }
  if (qp == nullptr) return;  // flushed already
  if (qp->sent.front().seq != f.seq) {
    notes.push_back("ACK out of order on QP " + std::to_string(qp->pub.qp_num));
    return;
  }
  PendingWr w = qp->sent.front();
  qp->sent.pop_front();
  if (f.flags & kAckCnp) AddCounters({{kRpCnpHandled, 1}});
  if (f.status == IBV_WC_SUCCESS) {
    CompleteWr(qp, w, IBV_WC_SUCCESS);
    return;
  }
  CompleteWr(qp, w, static_cast<ibv_wc_status>(f.status));
  FailQp(qp, IBV_WC_WR_FLUSH_ERR);
}

void Emulation::Pump() {
  for (auto& [qpn, qp] : qps) {
    if (qp->queued.empty()) continue;
    if (qp->state == IBV_QPS_ERR || qp->state == IBV_QPS_SQE) {
      FailQp(qp, IBV_WC_WR_FLUSH_ERR);
      continue;
    }
    if (qp->state != IBV_QPS_RTS) continue;
    if (!port_active_ || qp->conn == nullptr || qp->conn->dead) {
      FailQp(qp, IBV_WC_RETRY_EXC_ERR);
      continue;
    }
    Conn* c = qp->conn;
    while (!qp->queued.empty() && c->out.size() - c->out_off < kOutLimit && !c->dead) {
      PendingWr w = qp->queued.front();
      // The local side of the DMA: the lkey must name a region of this PD
      // that covers the gather entry.
      Mr* mr = nullptr;
      if (auto m = mrs.find(w.lkey); m != mrs.end()) mr = m->second;
      bool ok = mr != nullptr && mr->pd == qp->pd && w.local_addr >= MrAddr(mr) &&
                w.length <= mr->pub.length &&
                w.local_addr - MrAddr(mr) <= mr->pub.length - w.length;
      if (!ok) {
        qp->queued.pop_front();
        CompleteWr(qp, w, IBV_WC_LOC_PROT_ERR);
        FailQp(qp, IBV_WC_WR_FLUSH_ERR);
        break;
      }
      qp->queued.pop_front();
      w.seq = qp->next_seq++;
      Frame f;
      f.type = static_cast<uint32_t>(FrameType::kWrite);
      f.qpn = qp->dest_qpn;
      f.seq = w.seq;
      f.addr = w.remote_addr;
      f.rkey = w.rkey;
      qp->sent.push_back(w);
      Send(c, f, reinterpret_cast<const void*>(w.local_addr), w.length);
    }
  }
}

void Emulation::Run() {
  std::unique_lock<std::recursive_mutex> lock(mu);
  while (!stop_) {
    Pump();
    for (int fd : to_close) ::close(fd);
    to_close.clear();
    // Connections nobody needs any more.
    for (auto it = conns.begin(); it != conns.end();) {
      Conn* c = *it;
      bool flushed = c->out_off >= c->out.size();
      bool orphan = c->id == nullptr && (c->listener == nullptr || c->dead);
      if (orphan && (c->dead || (c->close_when_flushed && flushed))) {
        for (auto& [qpn, qp] : qps) {
          if (qp->conn == c) {
            if (!qp->sent.empty() || !qp->queued.empty()) FailQp(qp, IBV_WC_RETRY_EXC_ERR);
            qp->conn = nullptr;
          }
        }
        ::close(c->fd);
        delete c;
        it = conns.erase(it);
      } else {
        ++it;
      }
    }
    std::vector<pollfd> fds;
    std::vector<Conn*> polled_conns;
    std::vector<CmId*> polled_ids;
    fds.push_back({wake_fd_, POLLIN, 0});
    fds.push_back({inotify_fd_, POLLIN, 0});
    for (CmId* id : ids) {
      if (id->state == CmState::kListening) {
        fds.push_back({id->listen_fd, POLLIN, 0});
        polled_ids.push_back(id);
      }
    }
    size_t first_conn = fds.size();
    for (Conn* c : conns) {
      if (c->dead) continue;
      short ev = POLLIN;
      if (c->out_off < c->out.size()) ev |= POLLOUT;
      fds.push_back({c->fd, ev, 0});
      polled_conns.push_back(c);
    }
    lock.unlock();
    int n = ::poll(fds.data(), fds.size(), -1);
    lock.lock();
    if (n < 0) continue;
    if (fds[0].revents & POLLIN) {
      uint64_t v;
      (void)!::read(wake_fd_, &v, sizeof(v));
    }
    if (fds[1].revents & POLLIN) {
      char buf[4096];
      while (::read(inotify_fd_, buf, sizeof(buf)) > 0) {
      }
      OnPortChange();
    }
    for (size_t i = 0; i < polled_ids.size(); ++i) {
      if (!(fds[2 + i].revents & POLLIN)) continue;
      CmId* id = polled_ids[i];
      // It may have been destroyed while we polled.
      if (std::find(ids.begin(), ids.end(), id) != ids.end() && id->state == CmState::kListening) {
        OnListen(id);
      }
    }
    for (size_t i = 0; i < polled_conns.size(); ++i) {
      Conn* c = polled_conns[i];
      short rev = fds[first_conn + i].revents;
      if (c->dead) continue;
      if (rev & POLLOUT) Flush(c);
      if (rev & (POLLIN | POLLHUP | POLLERR)) OnReadable(c);
    }
  }
}

}  // namespace fabric::emu
