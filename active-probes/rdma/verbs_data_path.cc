// The initiator's data path: rdma_cm address and route resolution (which
// picks the RoCE v2 GID for the peer's IP), RC QPs moved to RTS with the
// smaller of both ends' active MTU, and a single thread that keeps tx_depth
// signalled RDMA WRITEs outstanding per QP and reaps completions, timing each
// poll on CLOCK_MONOTONIC (the ib_write_bw model without its TSC clock).
#include <time.h>

#include <vector>

#include "active-probes/control/cidr.h"
#include "active-probes/rdma/backend.h"
#include "active-probes/rdma/verbs_handles.h"

namespace fabric::probe {
namespace {

using namespace verbs;  // NOLINT(build/namespaces): the handle types

constexpr int kPollBatch = 32;
constexpr auto kDrainTimeout = std::chrono::milliseconds(2000);

double ThreadCpuNow() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

class VerbsInitiator : public RdmaInitiator {
 public:
  Result<RdmaInitiatorInfo> Connect(const RdmaInitiatorRequest& request) override {
    request_ = request;
    auto deadline = SteadyClock::now() + request.timeout;
    int timeout_ms = static_cast<int>(request.timeout.count());
    channel_.reset(rdma_create_event_channel());
    if (!channel_) return NoCmError();
    RdmaInitiatorInfo info;
    ibv_mtu cap = IBV_MTU_4096;
    for (uint32_t i = 0; i < request.qps; ++i) {
      rdma_cm_id* raw = nullptr;
      if (rdma_create_id(channel_.get(), &raw, nullptr, RDMA_PS_TCP) != 0) {
        return MakeError(Errno("rdma_create_id"));
      }
      Connection c;
      c.id = CmId(raw);
      sockaddr_storage src = WithPort(request.local, 0);
      sockaddr_storage dst = WithPort(request.peer, request.remote.cm_port);
      if (rdma_resolve_addr(c.id.get(), reinterpret_cast<sockaddr*>(&src),
                            reinterpret_cast<sockaddr*>(&dst), timeout_ms) != 0) {
        return MakeError(ErrorCode::kUnreachable, "unreachable: " + Errno("rdma_resolve_addr"));
      }
      FABRIC_RETURN_IF_ERROR(Expect(channel_.get(), RDMA_CM_EVENT_ADDR_RESOLVED, deadline,
                                    "resolving " + AddressText(request.peer), request.stop));
      if (c.id->verbs == nullptr) {
        return MakeError(ErrorCode::kNoDevice,
                         "no-device: no RDMA device holds " + AddressText(request.local));
      }
      if (rdma_resolve_route(c.id.get(), timeout_ms) != 0) {
        return MakeError(ErrorCode::kUnreachable, "unreachable: " + Errno("rdma_resolve_route"));
      }
      FABRIC_RETURN_IF_ERROR(Expect(channel_.get(), RDMA_CM_EVENT_ROUTE_RESOLVED, deadline,
                                    "route to " + AddressText(request.peer), request.stop));
      if (i == 0) {
        FABRIC_RETURN_IF_ERROR(SetUpDevice(c.id.get(), info));
        // The smaller end's MTU; a responder that could not say is trusted to
        // clamp its own side (it does: verbs_backend.cc).
        cap = MtuEnum(info.active_mtu);
        if (request.remote.active_mtu != 0) cap = std::min(cap, MtuEnum(request.remote.active_mtu));
      } else if (c.id->verbs != context_) {
        return MakeError("queue pairs resolved to different RDMA devices");
      }
      c.cq.reset(ibv_create_cq(context_, static_cast<int>(request.tx_depth), nullptr, nullptr, 0));
      if (!c.cq) return MakeError(Errno("ibv_create_cq"));
      ibv_qp_init_attr attr{};
      attr.send_cq = c.cq.get();
      attr.recv_cq = c.cq.get();
      attr.qp_type = IBV_QPT_RC;
      attr.cap.max_send_wr = request.tx_depth;
      attr.cap.max_recv_wr = 1;
      attr.cap.max_send_sge = 1;
      attr.cap.max_recv_sge = 1;
      c.qp.reset(ibv_create_qp(pd_.get(), &attr));
      if (!c.qp) {
        return MakeError(Errno("ibv_create_qp") + " (tx-depth " + std::to_string(request.tx_depth) +
                         " over the device's limit?)");
      }
      int access = IBV_ACCESS_LOCAL_WRITE;
      FABRIC_RETURN_IF_ERROR(ModifyQp(c.id.get(), c.qp.get(), IBV_QPS_INIT, cap, access));
      rdma_conn_param param{};
      param.qp_num = c.qp->qp_num;
      param.private_data = request.token.data();
      param.private_data_len = static_cast<uint8_t>(request.token.size());
      param.retry_count = 7;
      param.rnr_retry_count = 7;
      if (rdma_connect(c.id.get(), &param) != 0) return MakeError(Errno("rdma_connect"));
      // The QP is ours, not the id's, so rdma_cm reports the response and
      // leaves RTR/RTS (with our MTU cap) and the RTU to us.
      FABRIC_RETURN_IF_ERROR(Expect(channel_.get(), RDMA_CM_EVENT_CONNECT_RESPONSE, deadline,
                                    "queue pair " + std::to_string(i), request.stop));
      FABRIC_RETURN_IF_ERROR(ModifyQp(c.id.get(), c.qp.get(), IBV_QPS_RTR, cap, access));
      FABRIC_RETURN_IF_ERROR(ModifyQp(c.id.get(), c.qp.get(), IBV_QPS_RTS, cap, access));
      if (rdma_establish(c.id.get()) != 0) return MakeError(Errno("rdma_establish"));
      c.id.set_connected();
      conns_.push_back(std::move(c));
    }
    ibv_qp_attr qattr{};
    ibv_qp_init_attr iattr{};
    if (ibv_query_qp(conns_[0].qp.get(), &qattr, IBV_QP_PATH_MTU, &iattr) == 0) {
      info.path_mtu = MtuBytes(qattr.path_mtu);
    }
    return info;
  }

  Result<RdmaRunStats> Run(WindowCounter& counter, int64_t start_ns, int64_t end_ns,
                           const WindowEdgeFn& edge) override {
    (void)end_ns;
    const uint32_t n = static_cast<uint32_t>(conns_.size());
    std::vector<uint32_t> outstanding(n, 0);
    for (uint32_t q = 0; q < n; ++q) {
      FABRIC_RETURN_IF_ERROR(Post(q, request_.tx_depth));
      outstanding[q] = request_.tx_depth;
    }
    RdmaRunStats stats;
    bool started = false, stopping = false;
    double cpu_start = 0;
    double fill_sum = 0;
    uint64_t fill_samples = 0;
    SteadyClock::time_point drain_deadline{};
    ibv_wc wc[kPollBatch];
    for (;;) {
      // One relaxed load per sweep: the stop request ends the run within a
      // sweep; the QPs, CQs and the region go with the initiator.
      if (request_.stop.stop_requested()) {
        return MakeError(ErrorCode::kInterrupted,
                         std::string("interrupted: during the ") + (stopping  ? "drain"
                                                                    : started ? "window"
                                                                              : "warm-up"));
      }
      int64_t now = MonotonicNs();
      if (!started && now >= start_ns) {
        edge(false);
        started = true;
        cpu_start = ThreadCpuNow();
        now = MonotonicNs();
      }
      uint32_t in_flight = 0;
      for (uint32_t q = 0; q < n; ++q) {
        if (started && !stopping) {
          fill_sum += static_cast<double>(outstanding[q]) / request_.tx_depth;
          ++fill_samples;
        }
        int got = ibv_poll_cq(conns_[q].cq.get(), kPollBatch, wc);
        if (got < 0) return MakeError("ibv_poll_cq failed");
        for (int k = 0; k < got; ++k) {
          if (wc[k].status != IBV_WC_SUCCESS) return CompletionError(wc[k], q);
        }
        counter.Poll(now, q, static_cast<uint64_t>(got));
        outstanding[q] -= static_cast<uint32_t>(got);
        if (!stopping && got > 0) {
          FABRIC_RETURN_IF_ERROR(Post(q, static_cast<uint32_t>(got)));
          outstanding[q] += static_cast<uint32_t>(got);
        }
        in_flight += outstanding[q];
      }
      if (!stopping && counter.done()) {
        stats.poll_thread_cpu_seconds = ThreadCpuNow() - cpu_start;
        edge(true);
        stopping = true;
        drain_deadline = SteadyClock::now() + kDrainTimeout;
      }
      if (stopping && in_flight == 0) break;
      if (stopping && SteadyClock::now() > drain_deadline) {
        return MakeError(ErrorCode::kTimeout,
                         "timeout: " + std::to_string(in_flight) +
                             " RDMA WRITEs did not complete within 2 s of the window's end");
      }
    }
    if (fill_samples > 0) stats.mean_outstanding_fraction = fill_sum / fill_samples;
    return stats;
  }

 private:
  // A failed work completion, with its status. A port that went down during
  // the run shows as a transport error on the QPs (nothing is acknowledged
  // any more); that is the port's fault and is reported as such.
  Unexpected CompletionError(const ibv_wc& wc, uint32_t q) {
    std::string what = std::string("RDMA WRITE completed with error: ") +
                       ibv_wc_status_str(wc.status) + " (status " + std::to_string(wc.status) +
                       ", vendor error " + std::to_string(wc.vendor_err) + ") on QP " +
                       std::to_string(q);
    ibv_port_attr pattr{};
    if (ibv_query_port(context_, port_num_, &pattr) == 0 && pattr.state != IBV_PORT_ACTIVE) {
      return MakeError(ErrorCode::kNoActivePort,
                       "no-port: device " + std::string(ibv_get_device_name(context_->device)) +
                           " port " + std::to_string(port_num_) + " went down during the run (" +
                           what + ")");
    }
    return MakeError(what);
  }

  Status SetUpDevice(rdma_cm_id* id, RdmaInitiatorInfo& info) {
    context_ = id->verbs;
    port_num_ = id->port_num;
    ibv_port_attr pattr{};
    if (ibv_query_port(context_, id->port_num, &pattr) != 0) {
      return MakeError(Errno("ibv_query_port"));
    }
    info.device = ibv_get_device_name(context_->device);
    info.port = id->port_num;
    if (pattr.state != IBV_PORT_ACTIVE) {
      return MakeError(ErrorCode::kNoActivePort,
                       "no-port: device " + info.device + " has no active port");
    }
    info.active_mtu = MtuBytes(pattr.active_mtu);
    pd_.reset(ibv_alloc_pd(context_));
    if (!pd_) return MakeError(Errno("ibv_alloc_pd"));
    size_t bytes = static_cast<size_t>(request_.qps) * request_.size;
    void* mem = nullptr;
    if (posix_memalign(&mem, 4096, bytes) != 0) {
      return MakeError("cannot allocate " + std::to_string(bytes) + " bytes");
    }
    buffer_.reset(mem);
    std::memset(mem, 0xa5, bytes);
    mr_.reset(ibv_reg_mr(pd_.get(), mem, bytes, IBV_ACCESS_LOCAL_WRITE));
    if (!mr_) return MakeError(Errno("ibv_reg_mr"));
    return OkStatus();
  }

  // Posts `count` signalled WRITEs on QP q as one chain (one doorbell).
  Status Post(uint32_t q, uint32_t count) {
    constexpr uint32_t kChain = 32;
    ibv_sge sge[kChain];
    ibv_send_wr wr[kChain];
    while (count > 0) {
      uint32_t k = std::min(count, kChain);
      for (uint32_t j = 0; j < k; ++j) {
        sge[j].addr =
            reinterpret_cast<uintptr_t>(buffer_.get()) + static_cast<uint64_t>(q) * request_.size;
        sge[j].length = request_.size;
        sge[j].lkey = mr_->lkey;
        wr[j] = ibv_send_wr{};
        wr[j].wr_id = q;
        wr[j].sg_list = &sge[j];
        wr[j].num_sge = 1;
        wr[j].opcode = IBV_WR_RDMA_WRITE;
        wr[j].send_flags = IBV_SEND_SIGNALED;
        wr[j].wr.rdma.remote_addr = request_.remote.addr + static_cast<uint64_t>(q) * request_.size;
        wr[j].wr.rdma.rkey = request_.remote.rkey;
        wr[j].next = j + 1 < k ? &wr[j + 1] : nullptr;
      }
      ibv_send_wr* bad = nullptr;
      if (int rc = ibv_post_send(conns_[q].qp.get(), wr, &bad); rc != 0) {
        errno = rc;
        return MakeError(Errno("ibv_post_send"));
      }
      count -= k;
    }
    return OkStatus();
  }

  RdmaInitiatorRequest request_;
  ibv_context* context_ = nullptr;  // owned by librdmacm
  uint8_t port_num_ = 1;
  // Declaration order is construction order; destruction runs backwards.
  EventChannel channel_;
  Pd pd_;
  Buffer buffer_;
  Mr mr_;
  std::vector<Connection> conns_;
};

}  // namespace

Result<std::unique_ptr<RdmaInitiator>> NewVerbsInitiator() {
  return std::unique_ptr<RdmaInitiator>(new VerbsInitiator());
}

}  // namespace fabric::probe
