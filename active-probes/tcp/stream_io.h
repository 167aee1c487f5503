// The data path shared by the probe and the responder: one thread per TCP
// stream, sending (sendfile from a memfd, plain copying writes, or
// MSG_ZEROCOPY with completion reaping) or receiving, counting bytes in a
// per-stream cache line that the controller snapshots at window edges.
#pragma once

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "active-probes/tcp/host_stats.h"
#include "common/result.h"
#include "common/unique_fd.h"

namespace fabric::probe {

enum class SendMode { kSendfile, kCopy, kZerocopy };
std::string_view SendModeName(SendMode m);
Result<SendMode> ParseSendMode(std::string_view s);

// Read-only payload shared by every sender of a process: a file for sendfile
// and a mapping of it for write/MSG_ZEROCOPY. Contents never matter.
class Payload {
 public:
  // For kSendfile the file is an unnamed one on a disk filesystem when one is
  // writable (see OpenPayloadFile), otherwise a memfd.
  static Result<std::shared_ptr<Payload>> Create(size_t block_bytes, SendMode mode);
  ~Payload();
  Payload(const Payload&) = delete;
  Payload& operator=(const Payload&) = delete;

  int file() const { return fd_.get(); }
  // "page cache" (a disk filesystem's) or "shmem" (a memfd or tmpfs).
  std::string_view file_kind() const { return page_cache_ ? "page cache" : "shmem"; }
  const char* data() const { return data_; }
  size_t size() const { return size_; }
  size_t block() const { return block_; }

 private:
  Payload() = default;
  UniqueFd fd_;
  char* data_ = nullptr;
  size_t size_ = 0;
  size_t block_ = 0;
  bool page_cache_ = false;
};

struct alignas(64) StreamCounters {
  std::atomic<uint64_t> bytes{0};
  std::atomic<uint64_t> zc_sends{0};   // MSG_ZEROCOPY sends completed
  std::atomic<uint64_t> zc_copied{0};  // ... of which the kernel copied anyway
  // The thread's CPU time when it finished (a finished thread has no clock to
  // read), published before `done`.
  std::atomic<double> cpu_seconds_at_exit{0};
  // Receivers: when the peer's FIN was read (steady clock, ns); 0 while open.
  std::atomic<int64_t> peer_closed_ns{0};
  std::atomic<bool> done{false};
};

struct StreamSpec {
  UniqueFd fd;
  bool send = false;
  int cpu = -1;  // pin to this CPU; -1 leaves placement to the scheduler
};

// Snapshot of one stream at a window edge.
struct StreamSnapshot {
  uint64_t bytes = 0;
  double thread_cpu_seconds = 0;
  TcpInfoSample tcp;
  uint64_t zc_sends = 0;
  uint64_t zc_copied = 0;
  // Sending streams: TCP_NOTSENT_LOWAT as the socket has it; 0 = the kernel's default.
  uint32_t unsent_limit = 0;
  // Receiving streams: when the peer's FIN was read; unset while it sends.
  std::optional<std::chrono::steady_clock::time_point> peer_closed;
};

// The least bytes per receive call when the request names none.
inline constexpr uint32_t kDefaultRecvBlock = 128 * 1024;

// Bytes per receive call when the run names none: the send block, at least
// kDefaultRecvBlock, as iperf3 -l sizes both ends. With receive batching
// (receive_batching.h) a 1 MiB stream read in 128 KiB calls woke its receiver
// eight times per block: on veth, one stream, 1 MiB sends, 1 MiB receives moved
// 25-41 Gbit/s against 19-24 with 128 KiB in each of 4 alternating pairs, at
// 0.26-0.41 against 0.44-0.53 CPU-s/GB; on loopback 59-63 against 53-61 (3 of
// 4 pairs) at 0.19-0.20 against 0.22-0.27 (bench/tcp_probe_vs_iperf3.py
// --probe-args "--no-pin --recv-block 1M", 2026-12-07). Before the batching the
// same comparison had gone the other way. Pure.
uint32_t DefaultRecvBlock(uint32_t send_block);

class StreamSet {
 public:
  // recv_block: bytes per receive call (0: DefaultRecvBlock of the payload's block). unsent_limit:
  // TCP_NOTSENT_LOWAT on every sending stream (0: the kernel's default; see
  // unsent_limit.h).
  StreamSet(std::shared_ptr<Payload> payload, SendMode mode, uint64_t max_bytes_per_stream,
            uint32_t recv_block = 0, uint32_t unsent_limit = 0);
  ~StreamSet();  // Stops and joins.
  StreamSet(const StreamSet&) = delete;
  StreamSet& operator=(const StreamSet&) = delete;

  // Adds each stream's bytes to `total` when its thread ends (the node's probe
  // traffic, warm-up included); call before Start. Null counts nowhere.
  void CountInto(std::atomic<uint64_t>* total) { total_ = total; }
  // Starts one thread per spec; fails if zerocopy or the unsent limit cannot be
  // set on a sending stream.
  Status Start(std::vector<StreamSpec> specs);
  std::vector<StreamSnapshot> Snapshot() const;
  // Senders stop after their current call and half-close; receivers keep
  // reading until the peer's FIN. Returns at once.
  void StopSending();
  // Waits up to timeout for every thread, then forces the sockets shut.
  void Join(std::chrono::milliseconds timeout);
  // Shuts every socket down at once (session aborted).
  void Abort();
  size_t size() const { return workers_.size(); }
  // First error a worker hit other than the expected end-of-stream ones.
  std::string FirstError() const;

 private:
  struct Worker {
    StreamSpec spec;
    StreamCounters counters;
    std::thread thread;
    std::string error;
  };
  void Run(Worker& w);
  void RunSender(Worker& w);
  void RunReceiver(Worker& w);

  std::shared_ptr<Payload> payload_;
  SendMode mode_;
  uint64_t max_bytes_;
  size_t recv_block_;
  uint32_t unsent_limit_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t>* total_ = nullptr;
  std::vector<std::unique_ptr<Worker>> workers_;
  bool joined_ = false;
};

// The CPUs this thread may run on (sched_getaffinity).
std::vector<int> AllowedCpus();

}  // namespace fabric::probe
