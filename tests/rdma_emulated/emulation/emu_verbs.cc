// The libibverbs entry points the backend imports, plus the provider ops that
// verbs.h's inline functions dispatch to (poll_cq, post_send, query_port).
// Each rejects what a real provider rejects, with the same errno.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "emu.h"

namespace fabric::emu {
namespace {

using Lock = std::lock_guard<std::recursive_mutex>;

// Every emulated object starts with the public struct it hands out, so the
// two convert into each other.
template <typename T, typename P>
T* Of(P* pub) {
  return reinterpret_cast<T*>(pub);
}

constexpr int kKnownAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                             IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
                             IBV_ACCESS_MW_BIND | IBV_ACCESS_RELAXED_ORDERING;
constexpr int kQpAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                          IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

// The kernel's ib_modify_qp_is_ok table for RC queue pairs: the attributes a
// transition must carry and those it may carry.
struct Transition {
  ibv_qp_state from, to;
  int required, optional;
};
constexpr Transition kTransitions[] = {
    {IBV_QPS_RESET, IBV_QPS_RESET, 0, 0},
    {IBV_QPS_RESET, IBV_QPS_INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0},
    {IBV_QPS_INIT, IBV_QPS_INIT, 0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS},
    {IBV_QPS_INIT, IBV_QPS_RTR,
     IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
         IBV_QP_MIN_RNR_TIMER,
     IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX},
    {IBV_QPS_RTR, IBV_QPS_RTS,
     IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC,
     IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER |
         IBV_QP_PATH_MIG_STATE},
    {IBV_QPS_RTS, IBV_QPS_RTS, 0,
     IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE |
         IBV_QP_MIN_RNR_TIMER},
};

const Transition* FindTransition(ibv_qp_state from, ibv_qp_state to) {
  for (const auto& t : kTransitions) {
    if (t.from == from && t.to == to) return &t;
  }
  return nullptr;
}

void RemoveCqes(Cq* cq, Qp* qp) {
  if (cq == nullptr) return;
  for (auto it = cq->entries.begin(); it != cq->entries.end();) {
    it = it->second == qp ? cq->entries.erase(it) : it + 1;
  }
  cq->Update();
}

uint64_t Fnv1a(const unsigned char* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

int PollCq(ibv_cq* pub, int n, ibv_wc* wc) {
  Cq* cq = Of<Cq>(pub);
  if (!cq->ready.load(std::memory_order_acquire)) return 0;
  Emulation& e = Emu();
  Lock lock(e.mu);
  if (cq->overflowed) return -1;
  int k = 0;
  uint64_t octets = 0, packets = 0;
  while (k < n && !cq->entries.empty()) {
    auto [entry, qp] = cq->entries.front();
    cq->entries.pop_front();
    wc[k++] = entry;
    if (qp == nullptr) continue;
    if (qp->outstanding > 0) --qp->outstanding;
    if (entry.status == IBV_WC_SUCCESS && entry.opcode == IBV_WC_RDMA_WRITE) {
      ++e.writes_completed;
      e.bytes_completed += entry.byte_len;
      // Counted when the completion is polled: a window's counter delta then
      // holds exactly the WRITEs the poller saw (hardware counts on the wire).
      octets += WireOctets(entry.byte_len, qp->path_mtu);
      packets += WirePackets(entry.byte_len, qp->path_mtu);
    }
  }
  cq->Update();
  if (octets > 0) e.AddCounters({{kXmitData, octets}, {kXmitPackets, packets}});
  return k;
}

int PostSend(ibv_qp* pub, ibv_send_wr* wr, ibv_send_wr** bad) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  Qp* qp = Of<Qp>(pub);
  *bad = nullptr;
  if (qp->destroyed) {
    e.notes.push_back("ibv_post_send on a destroyed QP " + std::to_string(pub->qp_num));
    *bad = wr;
    return EINVAL;
  }
  // Work may be posted in RTS, and in the error states (it is flushed).
  if (qp->state != IBV_QPS_RTS && qp->state != IBV_QPS_ERR && qp->state != IBV_QPS_SQE) {
    *bad = wr;
    return EINVAL;
  }
  for (ibv_send_wr* w = wr; w != nullptr; w = w->next) {
    if (w->opcode != IBV_WR_RDMA_WRITE) {
      e.notes.push_back("opcode " + std::to_string(w->opcode) + " is not emulated");
      *bad = w;
      return EOPNOTSUPP;
    }
    if (w->num_sge < 0 || static_cast<uint32_t>(w->num_sge) > qp->cap.max_send_sge ||
        w->num_sge > 1) {
      *bad = w;
      return EINVAL;
    }
    if (w->send_flags & IBV_SEND_INLINE) {
      e.notes.push_back("inline sends are not emulated");
      *bad = w;
      return EOPNOTSUPP;
    }
    if (qp->outstanding >= qp->cap.max_send_wr) {
      *bad = w;  // the send queue is full; the WRs before it stay posted
      e.StartThread();
      e.Wake();
      return ENOMEM;
    }
    PendingWr p;
    p.wr_id = w->wr_id;
    p.signaled = (w->send_flags & IBV_SEND_SIGNALED) || qp->sq_sig_all;
    if (w->num_sge == 1) {
      p.local_addr = w->sg_list[0].addr;
      p.length = w->sg_list[0].length;
      p.lkey = w->sg_list[0].lkey;
    }
    p.remote_addr = w->wr.rdma.remote_addr;
    p.rkey = w->wr.rdma.rkey;
    ++qp->outstanding;
    qp->queued.push_back(p);
  }
  e.StartThread();
  e.Wake();
  return 0;
}

}  // namespace fabric::emu

using fabric::emu::Cq;
using fabric::emu::Emu;
using fabric::emu::Emulation;
using fabric::emu::Errno;
using fabric::emu::Mr;
using fabric::emu::Of;
using fabric::emu::Pd;
using fabric::emu::Qp;
using Lock = std::lock_guard<std::recursive_mutex>;

extern "C" {

const char* ibv_get_device_name(ibv_device* device) { return device->name; }

const char* ibv_wc_status_str(ibv_wc_status status) {
  static const char* const kNames[] = {
      "success",
      "local length error",
      "local QP operation error",
      "local EE context operation error",
      "local protection error",
      "Work Request Flushed Error",
      "memory management operation error",
      "bad response error",
      "local access error",
      "remote invalid request error",
      "remote access error",
      "remote operation error",
      "transport retry counter exceeded",
      "RNR retry counter exceeded",
      "local RDD violation error",
      "remote invalid RD request",
      "aborted error",
      "invalid EE context number",
      "invalid EE context state",
      "fatal error",
      "response timeout error",
      "general error",
      "TM error",
      "TM software rendezvous",
  };
  if (status < 0 || static_cast<size_t>(status) >= sizeof(kNames) / sizeof(kNames[0])) {
    return "unknown";
  }
  return kNames[status];
}

// The exported (compat) form; verbs.h's inline ibv_query_port uses the
// context's query_port op instead.
int(ibv_query_port)(ibv_context* context, uint8_t port_num, _compat_ibv_port_attr* port_attr) {
  (void)context;
  return Emu().QueryPort(port_num, reinterpret_cast<ibv_port_attr*>(port_attr));
}

ibv_pd* ibv_alloc_pd(ibv_context* context) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  if (context != e.context()) {
    errno = EINVAL;
    return nullptr;
  }
  auto* pd = new Pd();
  pd->pub.context = context;
  pd->pub.handle = static_cast<uint32_t>(++e.live_pds);
  return &pd->pub;
}

int ibv_dealloc_pd(ibv_pd* pub) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  Pd* pd = reinterpret_cast<Pd*>(pub);
  if (pd->mrs > 0 || pd->qps > 0) {
    e.notes.push_back("ibv_dealloc_pd with " + std::to_string(pd->mrs) + " MRs and " +
                      std::to_string(pd->qps) + " QPs still on it");
    return EBUSY;
  }
  delete pd;
  --e.live_pds;
  return 0;
}

ibv_mr*(ibv_reg_mr)(ibv_pd* pub, void* addr, size_t length, int access) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  Pd* pd = reinterpret_cast<Pd*>(pub);
  // Remote write and atomics need local write (the adapter writes the pages).
  if ((access & ~fabric::emu::kKnownAccess) != 0 || length == 0 ||
      ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
       !(access & IBV_ACCESS_LOCAL_WRITE))) {
    errno = EINVAL;
    return nullptr;
  }
  // Pinning fails on memory that is not mapped.
  long page = ::sysconf(_SC_PAGESIZE);
  uintptr_t start = reinterpret_cast<uintptr_t>(addr) & ~static_cast<uintptr_t>(page - 1);
  uintptr_t end = reinterpret_cast<uintptr_t>(addr) + length;
  size_t pages = (end - start + static_cast<size_t>(page) - 1) / static_cast<size_t>(page);
  std::vector<unsigned char> vec(pages);
  if (addr == nullptr || ::mincore(reinterpret_cast<void*>(start), end - start, vec.data()) != 0) {
    errno = EFAULT;
    return nullptr;
  }
  auto* mr = new Mr();
  mr->pd = pd;
  mr->access = access;
  mr->pub.context = pub->context;
  mr->pub.pd = pub;
  mr->pub.addr = addr;
  mr->pub.length = length;
  mr->pub.lkey = mr->pub.rkey = e.NewKey();
  mr->pub.handle = mr->pub.lkey;
  e.mrs[mr->pub.lkey] = mr;
  ++pd->mrs;
  ++e.live_mrs;
  e.peak_mrs = std::max(e.peak_mrs, e.live_mrs);
  return &mr->pub;
}

// What verbs.h's inline ibv_reg_mr calls when the access flags are not a
// compile-time constant (every -O0 build). Only iova == addr is emulated.
ibv_mr* ibv_reg_mr_iova2(ibv_pd* pd, void* addr, size_t length, uint64_t iova,
                         unsigned int access) {
  if (iova != reinterpret_cast<uintptr_t>(addr)) {
    errno = EOPNOTSUPP;
    return nullptr;
  }
  return (ibv_reg_mr)(pd, addr, length, static_cast<int>(access));
}

int ibv_dereg_mr(ibv_mr* pub) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  Mr* mr = reinterpret_cast<Mr*>(pub);
  std::string report = "{\"length\":" + std::to_string(pub->length) +
                       ",\"access\":" + std::to_string(mr->access) +
                       ",\"remote_bytes\":" + std::to_string(mr->remote_bytes);
  if (pub->length <= (256u << 20)) {
    char h[24];
    std::snprintf(h, sizeof(h), "%016llx",
                  static_cast<unsigned long long>(fabric::emu::Fnv1a(
                      static_cast<const unsigned char*>(pub->addr), pub->length)));
    report += ",\"fnv1a\":\"" + std::string(h) + "\"";
  }
  e.dereg_reports.push_back(report + "}");
  e.mrs.erase(pub->lkey);
  --mr->pd->mrs;
  --e.live_mrs;
  delete mr;
  return 0;
}

ibv_cq* ibv_create_cq(ibv_context* context, int cqe, void* cq_context, ibv_comp_channel* channel,
                      int comp_vector) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  if (context != e.context() || cqe < 1 || cqe > fabric::emu::kMaxCqe || comp_vector < 0 ||
      comp_vector >= context->num_comp_vectors) {
    errno = EINVAL;
    return nullptr;
  }
  if (channel != nullptr) {
    e.notes.push_back("completion channels are not emulated");
    errno = EOPNOTSUPP;
    return nullptr;
  }
  auto* cq = new Cq();
  cq->depth = cqe;  // exactly what was asked: hardware may round up, nothing promises it
  cq->pub.context = context;
  cq->pub.cq_context = cq_context;
  cq->pub.cqe = cqe;
  pthread_mutex_init(&cq->pub.mutex, nullptr);
  pthread_cond_init(&cq->pub.cond, nullptr);
  ++e.live_cqs;
  return &cq->pub;
}

int ibv_destroy_cq(ibv_cq* pub) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  Cq* cq = reinterpret_cast<Cq*>(pub);
  if (cq->qps > 0) {
    e.notes.push_back("ibv_destroy_cq with " + std::to_string(cq->qps) + " QPs still on it");
    return EBUSY;
  }
  pthread_mutex_destroy(&pub->mutex);
  pthread_cond_destroy(&pub->cond);
  delete cq;
  --e.live_cqs;
  return 0;
}

ibv_qp* ibv_create_qp(ibv_pd* pub, ibv_qp_init_attr* attr) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  Pd* pd = reinterpret_cast<Pd*>(pub);
  if (attr->qp_type != IBV_QPT_RC) {
    e.notes.push_back("only RC queue pairs are emulated");
    errno = EOPNOTSUPP;
    return nullptr;
  }
  if (attr->send_cq == nullptr || attr->recv_cq == nullptr || attr->srq != nullptr ||
      attr->cap.max_send_wr > static_cast<uint32_t>(fabric::emu::kMaxQpWr) ||
      attr->cap.max_recv_wr > static_cast<uint32_t>(fabric::emu::kMaxQpWr) ||
      attr->cap.max_send_sge > static_cast<uint32_t>(fabric::emu::kMaxSge) ||
      attr->cap.max_recv_sge > static_cast<uint32_t>(fabric::emu::kMaxSge) ||
      attr->cap.max_inline_data > fabric::emu::kMaxInline) {
    errno = EINVAL;
    return nullptr;
  }
  auto* qp = new Qp();
  qp->pd = pd;
  qp->send_cq = Of<Cq>(attr->send_cq);
  qp->recv_cq = Of<Cq>(attr->recv_cq);
  qp->cap = attr->cap;
  qp->sq_sig_all = attr->sq_sig_all;
  qp->pub.context = pub->context;
  qp->pub.qp_context = attr->qp_context;
  qp->pub.pd = pub;
  qp->pub.send_cq = attr->send_cq;
  qp->pub.recv_cq = attr->recv_cq;
  qp->pub.qp_num = e.NewQpn();
  qp->pub.handle = qp->pub.qp_num;
  qp->pub.state = IBV_QPS_RESET;
  qp->pub.qp_type = IBV_QPT_RC;
  pthread_mutex_init(&qp->pub.mutex, nullptr);
  pthread_cond_init(&qp->pub.cond, nullptr);
  ++pd->qps;
  ++qp->send_cq->qps;
  ++qp->recv_cq->qps;
  e.qps[qp->pub.qp_num] = qp;
  ++e.live_qps;
  e.peak_qps = std::max(e.peak_qps, e.live_qps);
  return &qp->pub;
}

int ibv_destroy_qp(ibv_qp* pub) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  Qp* qp = Of<Qp>(pub);
  if (qp->destroyed) return EINVAL;
  qp->destroyed = true;
  qp->state = IBV_QPS_RESET;
  qp->queued.clear();
  qp->sent.clear();
  fabric::emu::RemoveCqes(qp->send_cq, qp);
  if (qp->recv_cq != qp->send_cq) fabric::emu::RemoveCqes(qp->recv_cq, qp);
  --qp->send_cq->qps;
  --qp->recv_cq->qps;
  --qp->pd->qps;
  e.qps.erase(pub->qp_num);
  --e.live_qps;
  // The memory stays (until exit) so that a post on the stale handle is
  // answered rather than undefined.
  e.graveyard.push_back(qp);
  return 0;
}

int ibv_modify_qp(ibv_qp* pub, ibv_qp_attr* attr, int mask) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  Qp* qp = Of<Qp>(pub);
  if (qp->destroyed) return EINVAL;
  ibv_qp_state cur = qp->state;
  ibv_qp_state next = (mask & IBV_QP_STATE) ? attr->qp_state : cur;
  if ((mask & IBV_QP_CUR_STATE) && attr->cur_qp_state != cur) return EINVAL;
  int given = mask & ~(IBV_QP_STATE | IBV_QP_CUR_STATE);
  if (next == IBV_QPS_RESET || next == IBV_QPS_ERR) {
    if (given != 0 || !(mask & IBV_QP_STATE)) return EINVAL;
  } else {
    const fabric::emu::Transition* t = fabric::emu::FindTransition(cur, next);
    if (t == nullptr) return EINVAL;  // e.g. INIT -> RTS, RESET -> RTR
    if ((given & t->required) != t->required) return EINVAL;
    if ((given & ~(t->required | t->optional | IBV_QP_CUR_STATE)) != 0) return EINVAL;
  }
  if ((mask & IBV_QP_PORT) && attr->port_num != 1) return EINVAL;
  if ((mask & IBV_QP_PKEY_INDEX) && attr->pkey_index != 0) return EINVAL;
  if ((mask & IBV_QP_ACCESS_FLAGS) && (attr->qp_access_flags & ~fabric::emu::kQpAccess)) {
    return EINVAL;
  }
  if ((mask & IBV_QP_PATH_MTU) && (attr->path_mtu < IBV_MTU_256 || attr->path_mtu > IBV_MTU_4096)) {
    return EINVAL;
  }
  if (mask & IBV_QP_AV) {
    // RoCE needs a GRH and a source GID of ours.
    const ibv_ah_attr& av = attr->ah_attr;
    ibv_port_attr pattr{};
    e.QueryPort(1, &pattr);
    if (!av.is_global || av.port_num != 1 || av.grh.sgid_index >= pattr.gid_tbl_len) {
      return EINVAL;
    }
  }
  if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) && attr->max_dest_rd_atomic > fabric::emu::kMaxRdAtomic) {
    return EINVAL;
  }
  if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) && attr->max_rd_atomic > fabric::emu::kMaxRdAtomic) {
    return EINVAL;
  }
  if ((mask & IBV_QP_TIMEOUT) && attr->timeout > 31) return EINVAL;
  if ((mask & IBV_QP_RETRY_CNT) && attr->retry_cnt > 7) return EINVAL;
  if ((mask & IBV_QP_RNR_RETRY) && attr->rnr_retry > 7) return EINVAL;
  if ((mask & IBV_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31) return EINVAL;

  if (mask & IBV_QP_ACCESS_FLAGS) qp->access = attr->qp_access_flags;
  if (mask & IBV_QP_PORT) qp->port = attr->port_num;
  if (mask & IBV_QP_PATH_MTU) qp->path_mtu = attr->path_mtu;
  if (mask & IBV_QP_DEST_QPN) qp->dest_qpn = attr->dest_qp_num;
  if (mask & IBV_QP_AV) qp->dgid = attr->ah_attr.grh.dgid;
  qp->state = next;
  pub->state = next;
  if (next == IBV_QPS_RTR && cur == IBV_QPS_INIT) e.BindQp(qp);
  if (next == IBV_QPS_ERR) e.FailQp(qp, IBV_WC_WR_FLUSH_ERR);
  if (next == IBV_QPS_RESET) {
    qp->queued.clear();
    qp->sent.clear();
    qp->outstanding = 0;
    qp->conn = nullptr;
    fabric::emu::RemoveCqes(qp->send_cq, qp);
  }
  return 0;
}

int ibv_query_qp(ibv_qp* pub, ibv_qp_attr* attr, int mask, ibv_qp_init_attr* init_attr) {
  Emulation& e = Emu();
  Lock lock(e.mu);
  (void)mask;
  Qp* qp = Of<Qp>(pub);
  if (qp->destroyed) return EINVAL;
  std::memset(attr, 0, sizeof(*attr));
  attr->qp_state = qp->state;
  attr->cur_qp_state = qp->state;
  attr->path_mtu = qp->path_mtu;
  attr->dest_qp_num = qp->dest_qpn;
  attr->qp_access_flags = qp->access;
  attr->port_num = qp->port;
  attr->cap = qp->cap;
  attr->ah_attr.is_global = 1;
  attr->ah_attr.grh.dgid = qp->dgid;
  std::memset(init_attr, 0, sizeof(*init_attr));
  init_attr->send_cq = pub->send_cq;
  init_attr->recv_cq = pub->recv_cq;
  init_attr->cap = qp->cap;
  init_attr->qp_type = IBV_QPT_RC;
  init_attr->sq_sig_all = qp->sq_sig_all;
  init_attr->qp_context = pub->qp_context;
  return 0;
}

}  // extern "C"
