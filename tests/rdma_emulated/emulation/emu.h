// A test-only emulation of the part of libibverbs and librdmacm that the RDMA
// backend (active-probes/rdma/verbs_*.cc) calls: one RoCE device per process,
// bound to a real network interface, whose port, GID table and counters are
// written as a sysfs tree under $FABRIC_EMU_SYSFS. Queue pairs connect through
// rdma_cm over real TCP connections between the two processes (so the
// responder sees the requester's real source address), and an RDMA WRITE
// copies the requester's registered bytes into the responder's registered
// region after the checks a real adapter makes (rkey, range, access flags,
// queue pair state). Loaded with LD_PRELOAD (or linked into test programs);
// never part of a shipped binary. docs/probes/rdma.md lists what it checks.
//
// Everything below is internal to the library: the exported entry points are
// the verbs and rdma_cm functions themselves (emu_verbs.cc, emu_cm.cc).
#pragma once

#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <rdma/rdma_cma.h>
#include <sys/socket.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fabric::emu {

// The wire between two emulated adapters: one TCP connection per rdma_cm
// connection, carrying its CM messages and its queue pair's WRITEs and ACKs.
enum class FrameType : uint32_t {
  kReq = 1,    // connect request: qpn, psn, mtu, private data
  kRep = 2,    // accept: qpn, psn, mtu, private data
  kRej = 3,    // reject: private data
  kRtu = 4,    // ready to use (the requester's rdma_establish)
  kDreq = 5,   // disconnect request
  kDrep = 6,   // disconnect reply
  kWrite = 7,  // RDMA WRITE: dst qpn, seq, remote addr, rkey, payload
  kAck = 8,    // seq, status (0 = ok, else an ibv_wc_status), flags
};

struct Frame {
  uint32_t type = 0;
  uint32_t length = 0;  // payload bytes after the header
  uint32_t qpn = 0;     // REQ/REP: the sender's QP; WRITE: the destination QP
  uint32_t rkey = 0;
  uint64_t seq = 0;
  uint64_t addr = 0;
  uint32_t status = 0;
  uint32_t flags = 0;  // ACK: kAckCnp
  uint32_t mtu = 0;    // REQ/REP: the sender's active MTU (enum)
  uint32_t psn = 0;
};
inline constexpr uint32_t kAckCnp = 1;

// Private data a RDMA_PS_TCP connect request carries (IB CM's 92 bytes less
// rdma_cm's own header); accept and reject carry up to 196 and 148 bytes.
inline constexpr size_t kReqPrivateData = 56;
inline constexpr size_t kRepPrivateData = 196;
inline constexpr size_t kRejPrivateData = 148;

// Device limits (what ibv_query_device would say; the emulation enforces them).
inline constexpr int kMaxQpWr = 32768;
inline constexpr int kMaxSge = 30;
inline constexpr int kMaxCqe = 4194303;
inline constexpr int kMaxRdAtomic = 16;
inline constexpr uint32_t kMaxInline = 256;

// Octets each packet adds on the wire (Ethernet + FCS, IPv4, UDP, BTH, ICRC)
// and the RETH a WRITE's first packet carries.
inline constexpr uint64_t kPacketHeaderOctets = 14 + 4 + 20 + 8 + 12 + 4;
inline constexpr uint64_t kRethOctets = 16;

enum Counter : int {
  kXmitData = 0,  // octets (the file shows them / 4, like hardware)
  kRcvData,
  kXmitPackets,
  kRcvPackets,
  kNpCnpSent,
  kRpCnpHandled,
  kOutOfBuffer,
  kCounterCount
};

struct Cq;
struct Qp;
struct Pd;
struct CmId;
struct Channel;
struct Conn;

struct Mr {
  ibv_mr pub{};
  Pd* pd = nullptr;
  int access = 0;
  uint64_t remote_bytes = 0;  // written into it by remote WRITEs
};

inline uint64_t MrAddr(const Mr* m) { return reinterpret_cast<uintptr_t>(m->pub.addr); }

struct Pd {
  ibv_pd pub{};
  int mrs = 0;
  int qps = 0;
};

struct Cq {
  ibv_cq pub{};
  int depth = 0;
  std::deque<std::pair<ibv_wc, Qp*>> entries;
  bool overflowed = false;
  // Whether polling could find anything (entries or the overflow error): read
  // without the lock, so a busy poller does not starve the adapter thread.
  std::atomic<bool> ready{false};
  void Update() { ready.store(overflowed || !entries.empty(), std::memory_order_release); }
  int qps = 0;
};

struct PendingWr {
  uint64_t wr_id = 0;
  bool signaled = false;
  uint64_t local_addr = 0;
  uint32_t length = 0;
  uint32_t lkey = 0;
  uint64_t remote_addr = 0;
  uint32_t rkey = 0;
  uint64_t seq = 0;
};

struct Qp {
  ibv_qp pub{};
  Pd* pd = nullptr;
  Cq* send_cq = nullptr;
  Cq* recv_cq = nullptr;
  ibv_qp_cap cap{};
  int sq_sig_all = 0;
  ibv_qp_state state = IBV_QPS_RESET;
  int access = 0;
  uint8_t port = 0;
  ibv_mtu path_mtu = IBV_MTU_1024;
  uint32_t dest_qpn = 0;
  ibv_gid dgid{};
  uint32_t outstanding = 0;      // send queue slots taken (posted, completion not yet polled)
  std::deque<PendingWr> queued;  // posted, not yet on the wire
  std::deque<PendingWr> sent;    // on the wire, waiting for the ACK
  Conn* conn = nullptr;          // the transport its RTR attributes point at
  bool destroyed = false;
  uint64_t next_seq = 1;
};

// One rdma_cm connection's transport.
struct Conn {
  int fd = -1;
  CmId* listener = nullptr;  // passive, before the REQ: the listening id it arrived on
  std::string out;
  size_t out_off = 0;
  std::string in;
  CmId* id = nullptr;  // null once the id is destroyed (then it closes after flushing)
  uint32_t remote_qpn = 0;
  uint32_t remote_psn = 0;
  ibv_mtu remote_mtu = IBV_MTU_4096;
  ibv_gid remote_gid{};
  bool dead = false;  // peer closed or failed: no more frames either way
  bool close_when_flushed = false;
};

enum class CmState {
  kIdle,
  kBound,
  kListening,
  kAddrResolved,
  kRouteResolved,
  kConnecting,   // REQ sent
  kRepReceived,  // CONNECT_RESPONSE reported
  kReqReceived,  // passive: CONNECT_REQUEST reported
  kAccepted,     // passive: REP sent, waiting for the RTU
  kEstablished,
  kDisconnecting,
  kDisconnected,
  kRejected,
};

struct CmId {
  rdma_cm_id pub{};
  Channel* channel = nullptr;
  CmState state = CmState::kIdle;
  int listen_fd = -1;
  int backlog = 0;
  Conn* conn = nullptr;
  uint32_t local_qpn = 0;
  uint32_t local_psn = 0;
  uint8_t retry_count = 7;
  uint8_t rnr_retry = 7;
  uint8_t responder_resources = 0;
  uint8_t initiator_depth = 0;
  int unacked_events = 0;
};

struct Event {
  rdma_cm_event pub{};
  unsigned char private_data[kRepPrivateData]{};
};

struct Channel {
  rdma_event_channel pub{};
  int write_fd = -1;
  std::deque<Event*> queue;
  int ids = 0;
};

// The process's emulated adapter. One global instance behind Emu().
class Emulation {
 public:
  Emulation();
  ~Emulation();

  std::recursive_mutex mu;  // every object below; the adapter thread holds it while it works

  bool available() const { return available_; }
  ibv_context* context() { return &vctx_->context; }
  const std::string& device_name() const { return device_; }
  const std::string& netdev() const { return netdev_; }

  // Port attributes, the state read from the sysfs tree (the control file).
  int QueryPort(uint8_t port, ibv_port_attr* attr);
  bool PortActive();
  ibv_mtu ActiveMtu() const { return active_mtu_; }
  // Whether addr is one of the emulated interface's addresses.
  bool HoldsAddress(const sockaddr* addr);
  static ibv_gid GidOf(const sockaddr* addr);
  int GidIndexOf(const ibv_gid& gid);

  uint32_t NewQpn();
  uint32_t NewKey();

  // Port counters: shared by every process on the same device (a memory-mapped
  // file under the fixture root) and rendered into the sysfs files at once.
  void AddCounters(const std::vector<std::pair<Counter, uint64_t>>& adds);

  // Object registries (for lookups by number and the exit report).
  std::map<uint32_t, Qp*> qps;
  std::map<uint32_t, Mr*> mrs;  // by lkey (== rkey)
  std::vector<Qp*> graveyard;   // destroyed QPs: their memory stays so posts on them fail
  std::vector<Conn*> conns;
  std::vector<CmId*> ids;
  int live_pds = 0, live_mrs = 0, live_cqs = 0, live_qps = 0, live_ids = 0, live_channels = 0;
  int peak_qps = 0, peak_mrs = 0;
  uint64_t writes_completed = 0, bytes_completed = 0;  // polled successful WRITE completions
  uint64_t writes_received = 0, bytes_received = 0;    // remote WRITEs placed in our MRs
  uint64_t error_completions = 0;
  uint64_t writes_seen = 0;  // remote WRITEs that reached a ready QP (the NAK knob counts these)
  std::vector<std::string> async_events;  // what ibv_get_async_event would have reported
  std::vector<std::string> notes;         // misuse a real provider would also reject
  std::vector<std::string> dereg_reports;

  // Knobs (environment): the responder marks every Nth WRITE with ECN (a CNP
  // back), counts every Nth as out_of_buffer, NAKs every WRITE from the Nth on.
  uint64_t cnp_every = 0, oob_every = 0, nak_from = 0;

  // Wakes the adapter thread (new work, new sockets).
  void Wake();
  void StartThread();
  // At exit: stops the adapter thread and writes the report.
  void Shutdown();
  // fds the adapter thread closes (it may be polling them right now).
  std::vector<int> to_close;

  // Transport helpers (emu_wire.cc).
  Conn* NewConn(int fd, CmId* id);
  void Send(Conn* c, const Frame& f, const void* payload = nullptr, size_t len = 0);
  void QueueEvent(Channel* ch, CmId* id, rdma_cm_event_type type, int status,
                  const void* private_data = nullptr, size_t len = 0, CmId* listen = nullptr);
  void PushCqe(Cq* cq, Qp* qp, const ibv_wc& wc);
  void CompleteWr(Qp* qp, const PendingWr& wr, ibv_wc_status status);
  // Moves a QP to the error state, completing everything outstanding: the
  // first with `first` (its cause), the rest flushed.
  void FailQp(Qp* qp, ibv_wc_status first);
  void BindQp(Qp* qp);
  void DetachConn(Conn* c);

 private:
  void Run();
  void Pump();
  void OnReadable(Conn* c);
  void OnFrame(Conn* c, const Frame& f, const char* payload);
  void OnWrite(Conn* c, const Frame& f, const char* payload);
  void OnAck(Conn* c, const Frame& f);
  void OnListen(CmId* id);
  void OnPortChange();
  void Flush(Conn* c);
  void ConnGone(Conn* c);
  void WriteReport();
  void SetUpSysfs();
  void RenderCounter(Counter c);

  bool available_ = false;
  std::string root_, device_, netdev_, port_dir_, private_dir_, stats_path_;
  std::unique_ptr<verbs_context> vctx_;
  ibv_device device_struct_{};
  ibv_mtu active_mtu_ = IBV_MTU_1024;
  std::string rate_text_;
  struct Shared {
    uint32_t magic;
    uint32_t next_qpn;
    uint32_t next_key;
    uint32_t pad;
    uint64_t counters[kCounterCount];
  };
  Shared* shared_ = nullptr;
  int lock_fd_ = -1;
  int wake_fd_ = -1;
  int inotify_fd_ = -1;
  bool port_active_ = true;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  bool thread_started_ = false;
  std::vector<ibv_gid> gids_;
};

Emulation& Emu();

// Octets and packets a WRITE of `length` puts on the wire at this path MTU.
uint64_t WireOctets(uint64_t length, ibv_mtu mtu);
uint64_t WirePackets(uint64_t length, ibv_mtu mtu);

int Errno(int e);  // sets errno, returns -1

// The provider's data-path entry points (ibv_poll_cq and ibv_post_send are
// static inline in <infiniband/verbs.h> and call these through context->ops).
int PollCq(ibv_cq* cq, int n, ibv_wc* wc);
int PostSend(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad);

}  // namespace fabric::emu
