// The emulation enforces what a real provider enforces: linked straight
// against libfabric_verbs_emulation (no libibverbs), two rdma_cm ids in this
// process connect over loopback and every rule is exercised through the real
// verbs calls (state machine order and attribute masks, remote access checks,
// a full send queue, CQ overflow, posts on a destroyed QP, CM event order).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <sys/mman.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

namespace {

using SteadyClock = std::chrono::steady_clock;

rdma_cm_event_type NextEvent(rdma_event_channel* ch, std::string* private_data = nullptr,
                             rdma_cm_id** id = nullptr) {
  pollfd p{ch->fd, POLLIN, 0};
  if (::poll(&p, 1, 5000) != 1) return static_cast<rdma_cm_event_type>(-1);
  rdma_cm_event* ev = nullptr;
  if (rdma_get_cm_event(ch, &ev) != 0) return static_cast<rdma_cm_event_type>(-1);
  rdma_cm_event_type t = ev->event;
  if (private_data != nullptr && ev->param.conn.private_data != nullptr) {
    private_data->assign(static_cast<const char*>(ev->param.conn.private_data),
                         ev->param.conn.private_data_len);
  }
  if (id != nullptr) *id = ev->id;
  rdma_ack_cm_event(ev);
  return t;
}

// Polls until n completions arrived or 5 s passed.
std::vector<ibv_wc> Reap(ibv_cq* cq, size_t n, int* error = nullptr) {
  std::vector<ibv_wc> out;
  auto end = SteadyClock::now() + std::chrono::seconds(5);
  while (out.size() < n && SteadyClock::now() < end) {
    ibv_wc wc[8];
    int got = ibv_poll_cq(cq, 8, wc);
    if (got < 0) {
      if (error != nullptr) *error = got;
      return out;
    }
    out.insert(out.end(), wc, wc + got);
  }
  return out;
}

int Modify(rdma_cm_id* id, ibv_qp* qp, ibv_qp_state state, int access = -1) {
  ibv_qp_attr attr{};
  int mask = 0;
  attr.qp_state = state;
  if (rdma_init_qp_attr(id, &attr, &mask) != 0) return errno;
  if (access >= 0) attr.qp_access_flags = access;
  return ibv_modify_qp(qp, &attr, mask);
}

// A connected pair of RC QPs: client -> server, server region of `region`
// bytes registered with `server_access`.
class Pair : public ::testing::Test {
 protected:
  void Connect(int server_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
               uint32_t send_wr = 8, int client_cqe = 16, size_t region = 1 << 16) {
    server_ch_ = rdma_create_event_channel();
    client_ch_ = rdma_create_event_channel();
    ASSERT_NE(server_ch_, nullptr) << "FABRIC_EMU_SYSFS must be set for this test";
    ASSERT_EQ(rdma_create_id(server_ch_, &listen_, nullptr, RDMA_PS_TCP), 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(rdma_bind_addr(listen_, reinterpret_cast<sockaddr*>(&addr)), 0);
    ASSERT_NE(listen_->verbs, nullptr);
    ASSERT_EQ(rdma_listen(listen_, 4), 0);
    addr.sin_port = rdma_get_src_port(listen_);
    ctx_ = listen_->verbs;
    pd_ = ibv_alloc_pd(ctx_);
    server_mem_.assign(region, 0);
    server_mr_ = ibv_reg_mr(pd_, server_mem_.data(), region, server_access);
    ASSERT_NE(server_mr_, nullptr);
    client_mem_.assign(region, 0x5a);
    client_mr_ = ibv_reg_mr(pd_, client_mem_.data(), region, IBV_ACCESS_LOCAL_WRITE);
    server_cq_ = ibv_create_cq(ctx_, 16, nullptr, nullptr, 0);
    client_cq_ = ibv_create_cq(ctx_, client_cqe, nullptr, nullptr, 0);
    ASSERT_NE(client_cq_, nullptr);

    ASSERT_EQ(rdma_create_id(client_ch_, &client_, nullptr, RDMA_PS_TCP), 0);
    sockaddr_in src = addr;
    src.sin_port = 0;
    ASSERT_EQ(rdma_resolve_addr(client_, reinterpret_cast<sockaddr*>(&src),
                                reinterpret_cast<sockaddr*>(&addr), 1000),
              0);
    ASSERT_EQ(NextEvent(client_ch_), RDMA_CM_EVENT_ADDR_RESOLVED);
    ASSERT_EQ(rdma_resolve_route(client_, 1000), 0);
    ASSERT_EQ(NextEvent(client_ch_), RDMA_CM_EVENT_ROUTE_RESOLVED);
    ibv_qp_init_attr a{};
    a.send_cq = a.recv_cq = client_cq_;
    a.qp_type = IBV_QPT_RC;
    a.cap.max_send_wr = send_wr;
    a.cap.max_recv_wr = 1;
    a.cap.max_send_sge = a.cap.max_recv_sge = 1;
    client_qp_ = ibv_create_qp(pd_, &a);
    ASSERT_NE(client_qp_, nullptr);
    ASSERT_EQ(Modify(client_, client_qp_, IBV_QPS_INIT, IBV_ACCESS_LOCAL_WRITE), 0);
    rdma_conn_param p{};
    p.qp_num = client_qp_->qp_num;
    p.private_data = "token";
    p.private_data_len = 5;
    p.retry_count = 7;
    ASSERT_EQ(rdma_connect(client_, &p), 0);

    std::string pd;
    ASSERT_EQ(NextEvent(server_ch_, &pd, &server_), RDMA_CM_EVENT_CONNECT_REQUEST);
    // IB CM delivers the whole private data field, zero padded.
    EXPECT_EQ(pd.size(), 56u);
    EXPECT_EQ(pd.substr(0, 5), "token");
    EXPECT_EQ(pd[5], '\0');
    a.send_cq = a.recv_cq = server_cq_;
    a.cap.max_send_wr = 1;
    server_qp_ = ibv_create_qp(pd_, &a);
    ASSERT_NE(server_qp_, nullptr);
    int qp_access = server_access & (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    ASSERT_EQ(Modify(server_, server_qp_, IBV_QPS_INIT, qp_access), 0);
    ASSERT_EQ(Modify(server_, server_qp_, IBV_QPS_RTR), 0);
    ASSERT_EQ(Modify(server_, server_qp_, IBV_QPS_RTS), 0);
    rdma_conn_param r{};
    r.qp_num = server_qp_->qp_num;
    ASSERT_EQ(rdma_accept(server_, &r), 0);
    ASSERT_EQ(NextEvent(client_ch_), RDMA_CM_EVENT_CONNECT_RESPONSE);
    ASSERT_EQ(Modify(client_, client_qp_, IBV_QPS_RTR), 0);
    ASSERT_EQ(Modify(client_, client_qp_, IBV_QPS_RTS), 0);
    ASSERT_EQ(rdma_establish(client_), 0);
    ASSERT_EQ(NextEvent(server_ch_), RDMA_CM_EVENT_ESTABLISHED);
  }

  void TearDown() override {
    if (client_qp_ != nullptr) ibv_destroy_qp(client_qp_);
    if (server_qp_ != nullptr) ibv_destroy_qp(server_qp_);
    if (client_ != nullptr) rdma_destroy_id(client_);
    if (server_ != nullptr) rdma_destroy_id(server_);
    if (listen_ != nullptr) rdma_destroy_id(listen_);
    if (client_cq_ != nullptr) {
      EXPECT_EQ(ibv_destroy_cq(client_cq_), 0);
    }
    if (server_cq_ != nullptr) {
      EXPECT_EQ(ibv_destroy_cq(server_cq_), 0);
    }
    if (client_mr_ != nullptr) ibv_dereg_mr(client_mr_);
    if (server_mr_ != nullptr) ibv_dereg_mr(server_mr_);
    if (pd_ != nullptr) {
      EXPECT_EQ(ibv_dealloc_pd(pd_), 0);
    }
    if (client_ch_ != nullptr) rdma_destroy_event_channel(client_ch_);
    if (server_ch_ != nullptr) rdma_destroy_event_channel(server_ch_);
  }

  int Write(uint64_t wr_id, uint64_t remote_addr, uint32_t rkey, uint32_t length,
            ibv_send_wr** bad_out = nullptr, int chain = 1) {
    std::vector<ibv_sge> sge(chain);
    std::vector<ibv_send_wr> wr(chain);
    for (int i = 0; i < chain; ++i) {
      sge[i].addr = reinterpret_cast<uintptr_t>(client_mem_.data());
      sge[i].length = length;
      sge[i].lkey = client_mr_->lkey;
      wr[i] = ibv_send_wr{};
      wr[i].wr_id = wr_id + i;
      wr[i].sg_list = &sge[i];
      wr[i].num_sge = 1;
      wr[i].opcode = IBV_WR_RDMA_WRITE;
      wr[i].send_flags = IBV_SEND_SIGNALED;
      wr[i].wr.rdma.remote_addr = remote_addr;
      wr[i].wr.rdma.rkey = rkey;
      wr[i].next = i + 1 < chain ? &wr[i + 1] : nullptr;
    }
    ibv_send_wr* bad = nullptr;
    int rc = ibv_post_send(client_qp_, wr.data(), &bad);
    if (bad_out != nullptr) *bad_out = bad;
    if (bad != nullptr && rc != 0) bad_index_ = static_cast<int>(bad - wr.data());
    return rc;
  }
  uint64_t ServerAddr() const { return reinterpret_cast<uintptr_t>(server_mem_.data()); }
  ibv_qp_state State(ibv_qp* qp) {
    ibv_qp_attr attr{};
    ibv_qp_init_attr init{};
    ibv_query_qp(qp, &attr, IBV_QP_STATE, &init);
    return attr.qp_state;
  }

  rdma_event_channel* server_ch_ = nullptr;
  rdma_event_channel* client_ch_ = nullptr;
  rdma_cm_id* listen_ = nullptr;
  rdma_cm_id* server_ = nullptr;
  rdma_cm_id* client_ = nullptr;
  ibv_context* ctx_ = nullptr;
  ibv_pd* pd_ = nullptr;
  std::vector<unsigned char> server_mem_, client_mem_;
  ibv_mr* server_mr_ = nullptr;
  ibv_mr* client_mr_ = nullptr;
  ibv_cq* server_cq_ = nullptr;
  ibv_cq* client_cq_ = nullptr;
  ibv_qp* client_qp_ = nullptr;
  ibv_qp* server_qp_ = nullptr;
  int bad_index_ = -1;
};

TEST_F(Pair, WriteCopiesBytesIntoTheRemoteRegion) {
  ASSERT_NO_FATAL_FAILURE(Connect());
  ASSERT_EQ(Write(7, ServerAddr() + 100, server_mr_->rkey, 4096), 0);
  auto wc = Reap(client_cq_, 1);
  ASSERT_EQ(wc.size(), 1u);
  EXPECT_EQ(wc[0].status, IBV_WC_SUCCESS) << ibv_wc_status_str(wc[0].status);
  EXPECT_EQ(wc[0].wr_id, 7u);
  EXPECT_EQ(wc[0].opcode, IBV_WC_RDMA_WRITE);
  EXPECT_EQ(server_mem_[99], 0);
  EXPECT_EQ(server_mem_[100], 0x5a);
  EXPECT_EQ(server_mem_[100 + 4095], 0x5a);
  EXPECT_EQ(server_mem_[100 + 4096], 0);
}

TEST_F(Pair, WrongRkeyIsARemoteAccessErrorAndTheQpGoesToError) {
  ASSERT_NO_FATAL_FAILURE(Connect());
  ASSERT_EQ(Write(1, ServerAddr(), server_mr_->rkey ^ 0x100, 64), 0);
  auto wc = Reap(client_cq_, 1);
  ASSERT_EQ(wc.size(), 1u);
  EXPECT_EQ(wc[0].status, IBV_WC_REM_ACCESS_ERR);
  EXPECT_EQ(State(client_qp_), IBV_QPS_ERR);
  EXPECT_EQ(State(server_qp_), IBV_QPS_ERR);
  // Work posted on a QP in error is flushed, not executed.
  ASSERT_EQ(Write(2, ServerAddr(), server_mr_->rkey, 64), 0);
  wc = Reap(client_cq_, 1);
  ASSERT_EQ(wc.size(), 1u);
  EXPECT_EQ(wc[0].status, IBV_WC_WR_FLUSH_ERR);
  EXPECT_EQ(server_mem_[0], 0);
}

TEST_F(Pair, WriteOutsideTheRegionIsARemoteAccessError) {
  ASSERT_NO_FATAL_FAILURE(Connect());
  ASSERT_EQ(Write(1, ServerAddr() + server_mem_.size() - 10, server_mr_->rkey, 64), 0);
  auto wc = Reap(client_cq_, 1);
  ASSERT_EQ(wc.size(), 1u);
  EXPECT_EQ(wc[0].status, IBV_WC_REM_ACCESS_ERR);
}

TEST_F(Pair, RegionWithoutRemoteWriteRefusesWrites) {
  ASSERT_NO_FATAL_FAILURE(Connect(/*server_access=*/IBV_ACCESS_LOCAL_WRITE));
  ASSERT_EQ(Write(1, ServerAddr(), server_mr_->rkey, 64), 0);
  auto wc = Reap(client_cq_, 1);
  ASSERT_EQ(wc.size(), 1u);
  EXPECT_EQ(wc[0].status, IBV_WC_REM_ACCESS_ERR);
  EXPECT_EQ(server_mem_[0], 0);
}

TEST_F(Pair, FullSendQueueRejectsThePost) {
  ASSERT_NO_FATAL_FAILURE(Connect(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, /*send_wr=*/4));
  ibv_send_wr* bad = nullptr;
  // Five in one chain on a queue of four: the fifth is the bad one.
  EXPECT_EQ(Write(1, ServerAddr(), server_mr_->rkey, 64, &bad, 5), ENOMEM);
  EXPECT_EQ(bad_index_, 4);
  // The four that fitted complete; their slots free once polled.
  EXPECT_EQ(Reap(client_cq_, 4).size(), 4u);
  EXPECT_EQ(Write(10, ServerAddr(), server_mr_->rkey, 64), 0);
  EXPECT_EQ(Reap(client_cq_, 1).size(), 1u);
}

TEST_F(Pair, CqOverflowIsAnError) {
  ASSERT_NO_FATAL_FAILURE(
      Connect(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, /*send_wr=*/8, /*client_cqe=*/2));
  ASSERT_EQ(Write(1, ServerAddr(), server_mr_->rkey, 64, nullptr, 4), 0);
  // Four completions for two entries: polling reports the CQ in error.
  int error = 0;
  auto end = SteadyClock::now() + std::chrono::seconds(5);
  while (error == 0 && SteadyClock::now() < end) {
    ibv_wc wc[1];
    int got = ibv_poll_cq(client_cq_, 0, wc);  // look without taking any
    if (got < 0) error = got;
  }
  EXPECT_LT(error, 0);
  EXPECT_EQ(State(client_qp_), IBV_QPS_ERR);
}

TEST_F(Pair, PostOnADestroyedQpFails) {
  ASSERT_NO_FATAL_FAILURE(Connect());
  ASSERT_EQ(ibv_destroy_qp(client_qp_), 0);
  ibv_qp* stale = client_qp_;
  client_qp_ = nullptr;
  ibv_sge sge{reinterpret_cast<uintptr_t>(client_mem_.data()), 64, client_mr_->lkey};
  ibv_send_wr wr{};
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.wr.rdma.remote_addr = ServerAddr();
  wr.wr.rdma.rkey = server_mr_->rkey;
  ibv_send_wr* bad = nullptr;
  EXPECT_EQ(ibv_post_send(stale, &wr, &bad), EINVAL);
  EXPECT_EQ(bad, &wr);
}

TEST_F(Pair, PeerGoneFailsOutstandingWork) {
  ASSERT_NO_FATAL_FAILURE(Connect());
  ASSERT_EQ(ibv_destroy_qp(server_qp_), 0);
  server_qp_ = nullptr;
  ASSERT_EQ(Write(1, ServerAddr(), server_mr_->rkey, 64), 0);
  auto wc = Reap(client_cq_, 1);
  ASSERT_EQ(wc.size(), 1u);
  EXPECT_EQ(wc[0].status, IBV_WC_RETRY_EXC_ERR);
}

TEST_F(Pair, DisconnectReachesBothSides) {
  ASSERT_NO_FATAL_FAILURE(Connect());
  ASSERT_EQ(rdma_disconnect(client_), 0);
  EXPECT_EQ(NextEvent(server_ch_), RDMA_CM_EVENT_DISCONNECTED);
  EXPECT_EQ(NextEvent(client_ch_), RDMA_CM_EVENT_DISCONNECTED);
  EXPECT_NE(rdma_disconnect(client_), 0);  // once
}

TEST_F(Pair, ObjectsInUseCannotBeFreed) {
  ASSERT_NO_FATAL_FAILURE(Connect());
  EXPECT_EQ(ibv_dealloc_pd(pd_), EBUSY);
  EXPECT_EQ(ibv_destroy_cq(client_cq_), EBUSY);
}

TEST(Emulation, QpStateMachineOrderAndMasks) {
  rdma_event_channel* ch = rdma_create_event_channel();
  ASSERT_NE(ch, nullptr);
  rdma_cm_id* id = nullptr;
  ASSERT_EQ(rdma_create_id(ch, &id, nullptr, RDMA_PS_TCP), 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(rdma_bind_addr(id, reinterpret_cast<sockaddr*>(&addr)), 0);
  ibv_pd* pd = ibv_alloc_pd(id->verbs);
  ibv_cq* cq = ibv_create_cq(id->verbs, 4, nullptr, nullptr, 0);
  ibv_qp_init_attr a{};
  a.send_cq = a.recv_cq = cq;
  a.qp_type = IBV_QPT_RC;
  a.cap.max_send_wr = a.cap.max_recv_wr = 1;
  a.cap.max_send_sge = a.cap.max_recv_sge = 1;
  ibv_qp* qp = ibv_create_qp(pd, &a);
  ASSERT_NE(qp, nullptr);
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_RTR;
  EXPECT_EQ(ibv_modify_qp(qp, &attr, IBV_QP_STATE), EINVAL);  // RESET -> RTR
  attr.qp_state = IBV_QPS_INIT;
  attr.port_num = 1;
  EXPECT_EQ(ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PORT | IBV_QP_PKEY_INDEX),
            EINVAL);  // no access flags
  EXPECT_EQ(ibv_modify_qp(qp, &attr,
                          IBV_QP_STATE | IBV_QP_PORT | IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS |
                              IBV_QP_SQ_PSN),
            EINVAL);  // an attribute INIT does not take
  attr.port_num = 2;
  EXPECT_EQ(ibv_modify_qp(qp, &attr,
                          IBV_QP_STATE | IBV_QP_PORT | IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS),
            EINVAL);  // no such port
  attr.port_num = 1;
  EXPECT_EQ(ibv_modify_qp(qp, &attr,
                          IBV_QP_STATE | IBV_QP_PORT | IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS),
            0);
  attr.qp_state = IBV_QPS_RTS;
  EXPECT_EQ(ibv_modify_qp(qp, &attr, IBV_QP_STATE), EINVAL);  // INIT -> RTS
  // rdma_cm has nothing for RTR before a connection exists.
  ibv_qp_attr rtr{};
  int mask = 0;
  rtr.qp_state = IBV_QPS_RTR;
  EXPECT_NE(rdma_init_qp_attr(id, &rtr, &mask), 0);
  ibv_sge sge{0, 0, 0};
  ibv_send_wr wr{};
  wr.sg_list = &sge;
  wr.opcode = IBV_WR_RDMA_WRITE;
  ibv_send_wr* bad = nullptr;
  EXPECT_EQ(ibv_post_send(qp, &wr, &bad), EINVAL);  // not in RTS
  EXPECT_EQ(ibv_destroy_qp(qp), 0);
  EXPECT_EQ(ibv_destroy_cq(cq), 0);
  EXPECT_EQ(ibv_dealloc_pd(pd), 0);
  EXPECT_EQ(rdma_destroy_id(id), 0);
  rdma_destroy_event_channel(ch);
}

TEST(Emulation, MemoryRegistrationRules) {
  rdma_event_channel* ch = rdma_create_event_channel();
  ASSERT_NE(ch, nullptr);
  rdma_cm_id* id = nullptr;
  ASSERT_EQ(rdma_create_id(ch, &id, nullptr, RDMA_PS_TCP), 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(rdma_bind_addr(id, reinterpret_cast<sockaddr*>(&addr)), 0);
  ibv_pd* pd = ibv_alloc_pd(id->verbs);
  std::vector<char> mem(4096);
  // Remote write needs local write.
  EXPECT_EQ(ibv_reg_mr(pd, mem.data(), mem.size(), IBV_ACCESS_REMOTE_WRITE), nullptr);
  EXPECT_EQ(errno, EINVAL);
  // Memory that is not mapped cannot be pinned.
  void* hole = ::mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(hole, MAP_FAILED);
  ::munmap(hole, 8192);
  EXPECT_EQ(ibv_reg_mr(pd, hole, 8192, IBV_ACCESS_LOCAL_WRITE), nullptr);
  EXPECT_EQ(errno, EFAULT);
  ibv_mr* mr = ibv_reg_mr(pd, mem.data(), mem.size(), IBV_ACCESS_LOCAL_WRITE);
  ASSERT_NE(mr, nullptr);
  EXPECT_EQ(mr->lkey, mr->rkey);
  EXPECT_EQ(ibv_dealloc_pd(pd), EBUSY);
  EXPECT_EQ(ibv_dereg_mr(mr), 0);
  EXPECT_EQ(ibv_dealloc_pd(pd), 0);
  EXPECT_EQ(rdma_destroy_id(id), 0);
  rdma_destroy_event_channel(ch);
}

TEST(Emulation, ConnectToNobodyIsRejected) {
  rdma_event_channel* ch = rdma_create_event_channel();
  ASSERT_NE(ch, nullptr);
  rdma_cm_id* id = nullptr;
  ASSERT_EQ(rdma_create_id(ch, &id, nullptr, RDMA_PS_TCP), 0);
  sockaddr_in dst{};
  dst.sin_family = AF_INET;
  dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  dst.sin_port = htons(1);  // nobody listens
  ASSERT_EQ(rdma_resolve_addr(id, nullptr, reinterpret_cast<sockaddr*>(&dst), 1000), 0);
  ASSERT_EQ(NextEvent(ch), RDMA_CM_EVENT_ADDR_RESOLVED);
  ASSERT_EQ(rdma_resolve_route(id, 1000), 0);
  ASSERT_EQ(NextEvent(ch), RDMA_CM_EVENT_ROUTE_RESOLVED);
  ibv_pd* pd = ibv_alloc_pd(id->verbs);
  ibv_cq* cq = ibv_create_cq(id->verbs, 4, nullptr, nullptr, 0);
  ibv_qp_init_attr a{};
  a.send_cq = a.recv_cq = cq;
  a.qp_type = IBV_QPT_RC;
  a.cap.max_send_wr = a.cap.max_recv_wr = 1;
  a.cap.max_send_sge = a.cap.max_recv_sge = 1;
  ibv_qp* qp = ibv_create_qp(pd, &a);
  rdma_conn_param p{};
  p.qp_num = qp->qp_num;
  std::string too_long(57, 'x');  // RDMA_PS_TCP carries 56 bytes
  p.private_data = too_long.data();
  p.private_data_len = 57;
  EXPECT_NE(rdma_connect(id, &p), 0);
  p.private_data_len = 56;
  ASSERT_EQ(rdma_connect(id, &p), 0);
  EXPECT_EQ(NextEvent(ch), RDMA_CM_EVENT_REJECTED);
  ibv_destroy_qp(qp);
  ibv_destroy_cq(cq);
  ibv_dealloc_pd(pd);
  rdma_destroy_id(id);
  rdma_destroy_event_channel(ch);
}

}  // namespace
