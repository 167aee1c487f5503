// The verbs/rdma_cm backend: the responder's target (memory region, rdma_cm
// listener, QP admission) and the factory. The initiator's data path is in
// verbs_data_path.cc.
#include <vector>

#include "active-probes/control/auth.h"
#include "active-probes/control/cidr.h"
#include "active-probes/rdma/backend.h"
#include "active-probes/rdma/verbs_handles.h"

namespace fabric::probe {

Result<std::unique_ptr<RdmaInitiator>> NewVerbsInitiator();

namespace {

using namespace verbs;  // NOLINT(build/namespaces): the handle types

class VerbsTarget : public RdmaTarget {
 public:
  ~VerbsTarget() override {
    // Connections (QPs, then ids) before the listener, the region and the PD.
    conns_.clear();
    listen_.Reset();
    mr_.reset();
  }

  Result<RdmaRegion> Prepare(const RdmaTargetRequest& request) override {
    request_ = request;
    channel_.reset(rdma_create_event_channel());
    if (!channel_) return NoCmError();
    rdma_cm_id* id = nullptr;
    if (rdma_create_id(channel_.get(), &id, nullptr, RDMA_PS_TCP) != 0) {
      return MakeError(Errno("rdma_create_id"));
    }
    listen_ = CmId(id);
    sockaddr_storage local = WithPort(request.local, 0);
    if (rdma_bind_addr(listen_.get(), reinterpret_cast<sockaddr*>(&local)) != 0) {
      return MakeError(ErrorCode::kNoDevice, "no-device: rdma_cm cannot bind " +
                                                 AddressText(request.local) + ": " +
                                                 std::strerror(errno));
    }
    if (listen_->verbs == nullptr) {
      return MakeError(ErrorCode::kNoDevice,
                       "no-device: no RDMA device holds " + AddressText(request.local));
    }
    ibv_port_attr pattr{};
    if (ibv_query_port(listen_->verbs, listen_->port_num, &pattr) != 0) {
      return MakeError(Errno("ibv_query_port"));
    }
    if (pattr.state != IBV_PORT_ACTIVE) {
      return MakeError(ErrorCode::kNoActivePort, std::string("no-port: device ") +
                                                     ibv_get_device_name(listen_->verbs->device) +
                                                     " has no active port");
    }
    active_mtu_ = pattr.active_mtu;
    pd_.reset(ibv_alloc_pd(listen_->verbs));
    if (!pd_) return MakeError(Errno("ibv_alloc_pd"));
    void* mem = nullptr;
    if (posix_memalign(&mem, 4096, request.region_bytes) != 0) {
      return MakeError("cannot allocate " + std::to_string(request.region_bytes) + " bytes");
    }
    buffer_.reset(mem);
    std::memset(mem, 0, request.region_bytes);
    // Remote write only: the requester can neither read this memory nor use
    // atomics on it, and it holds nothing but zeros.
    mr_.reset(ibv_reg_mr(pd_.get(), mem, request.region_bytes,
                         IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
    if (!mr_) return MakeError(Errno("ibv_reg_mr"));
    cq_.reset(
        ibv_create_cq(listen_->verbs, static_cast<int>(request.qps) * 2 + 2, nullptr, nullptr, 0));
    if (!cq_) return MakeError(Errno("ibv_create_cq"));
    if (rdma_listen(listen_.get(), static_cast<int>(request.qps)) != 0) {
      return MakeError(Errno("rdma_listen"));
    }
    RdmaRegion r;
    r.addr = reinterpret_cast<uintptr_t>(mem);
    r.rkey = mr_->rkey;
    r.length = request.region_bytes;
    r.cm_port = ntohs(rdma_get_src_port(listen_.get()));
    r.device = ibv_get_device_name(listen_->verbs->device);
    r.port = listen_->port_num;
    r.active_mtu = MtuBytes(active_mtu_);
    return r;
  }

  Status AcceptQps(SteadyClock::time_point deadline) override {
    size_t established = 0;
    while (established < request_.qps) {
      auto ev = WaitEvent(channel_.get(), deadline);
      if (!ev.ok()) {
        return MakeError(ev.error().code, ev.error().message + " (" + std::to_string(established) +
                                              " of " + std::to_string(request_.qps) +
                                              " queue pairs connected)");
      }
      if (ev->type == RDMA_CM_EVENT_CONNECT_REQUEST) {
        if (auto s = OnRequest(*ev); !s.ok()) return s;
      } else if (ev->type == RDMA_CM_EVENT_ESTABLISHED) {
        for (auto& c : conns_) {
          if (c.id.get() == ev->id) {
            c.id.set_connected();
            ++established;
          }
        }
      } else if (ev->type == RDMA_CM_EVENT_CONNECT_ERROR || ev->type == RDMA_CM_EVENT_UNREACHABLE ||
                 ev->type == RDMA_CM_EVENT_REJECTED || ev->type == RDMA_CM_EVENT_DISCONNECTED) {
        return MakeError(std::string("queue pair set-up failed: ") + rdma_event_str(ev->type));
      }
    }
    return OkStatus();
  }

 private:
  Status OnRequest(const CmEvent& ev) {
    CmId id(ev.id);
    sockaddr_storage peer{};
    std::memcpy(
        &peer, rdma_get_peer_addr(id.get()),
        id->route.addr.dst_addr.sa_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in));
    // Only the authenticated requester's address, only with this session's
    // token, and only as many QPs as it asked for.
    bool ok = SameHost(peer, request_.peer) && ev.private_data.size() >= request_.token.size() &&
              MacEqual(ev.private_data.substr(0, request_.token.size()), request_.token) &&
              conns_.size() < request_.qps;
    if (!ok) {
      rdma_reject(id.get(), nullptr, 0);
      return OkStatus();  // not ours; keep waiting for the real ones
    }
    Connection c;
    c.id = std::move(id);
    ibv_qp_init_attr attr{};
    attr.send_cq = cq_.get();
    attr.recv_cq = cq_.get();
    attr.qp_type = IBV_QPT_RC;
    attr.cap.max_send_wr = 1;
    attr.cap.max_recv_wr = 1;
    attr.cap.max_send_sge = 1;
    attr.cap.max_recv_sge = 1;
    c.qp.reset(ibv_create_qp(pd_.get(), &attr));
    if (!c.qp) return MakeError(Errno("ibv_create_qp"));
    int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
    FABRIC_RETURN_IF_ERROR(ModifyQp(c.id.get(), c.qp.get(), IBV_QPS_INIT, active_mtu_, access));
    FABRIC_RETURN_IF_ERROR(ModifyQp(c.id.get(), c.qp.get(), IBV_QPS_RTR, active_mtu_, access));
    FABRIC_RETURN_IF_ERROR(ModifyQp(c.id.get(), c.qp.get(), IBV_QPS_RTS, active_mtu_, access));
    rdma_conn_param param{};
    param.qp_num = c.qp->qp_num;
    param.retry_count = 7;
    param.rnr_retry_count = 7;
    if (rdma_accept(c.id.get(), &param) != 0) return MakeError(Errno("rdma_accept"));
    conns_.push_back(std::move(c));
    return OkStatus();
  }

  RdmaTargetRequest request_;
  // Declaration order is construction order; destruction runs backwards.
  EventChannel channel_;
  CmId listen_;
  Pd pd_;
  Buffer buffer_;
  Mr mr_;
  Cq cq_;
  std::vector<Connection> conns_;
  ibv_mtu active_mtu_ = IBV_MTU_1024;
};

class VerbsBackend : public RdmaBackend {
 public:
  Result<std::unique_ptr<RdmaTarget>> NewTarget() override {
    return std::unique_ptr<RdmaTarget>(new VerbsTarget());
  }
  Result<std::unique_ptr<RdmaInitiator>> NewInitiator() override { return NewVerbsInitiator(); }
};

}  // namespace

RdmaBackend& DefaultRdmaBackend() {
  static VerbsBackend backend;
  return backend;
}

bool RdmaBuiltWithVerbs() { return true; }

}  // namespace fabric::probe
