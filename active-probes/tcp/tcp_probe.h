// The multi-stream TCP probe: TcpProbeOptions in, TcpProbeResult out. Used by
// `fabric_probe tcp` and scheduled from fabric_exporter. Runs against a
// Responder; counts at the receiver over a window that excludes warm-up, and
// carries the evidence (CPU, NIC counters, TCP_INFO) to judge its own result.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "active-probes/control/conn.h"
#include "active-probes/probe/direction.h"
#include "active-probes/probe/probe.h"
#include "active-probes/probe/rate_summary.h"
#include "active-probes/tcp/stream_io.h"
#include "common/result.h"

namespace fabric::probe {

struct TcpProbeOptions {
  HostPort peer;
  std::string bind_address;  // source address; empty = the route's
  std::string secret;
  uint32_t streams = 8;
  std::chrono::milliseconds duration{5000};
  std::chrono::milliseconds warmup{1000};
  Direction direction = Direction::kSend;
  SendMode mode = SendMode::kSendfile;
  // Bytes per send call: 256 KiB used less CPU per byte than 128 KiB
  // (iperf3's default) and than 1 MiB in our loopback runs.
  uint32_t block = 256 * 1024;
  // Bytes per receive call, on both sides; 0: DefaultRecvBlock(block), the send
  // block and at least 128 KiB (stream_io.h says why).
  uint32_t recv_block = 0;
  int sndbuf = 0;  // our data sockets; 0 = autotune
  int rcvbuf = 0;
  uint32_t peer_rcvbuf = 0;  // asked of the responder; 0 = its default
  uint32_t peer_sndbuf = 0;
  // TCP_NOTSENT_LOWAT on every sending stream, both sides; 0 = the kernel's default; unset =
  // AutoUnsentLimit(streams, block) (unsent_limit.h).
  std::optional<uint32_t> unsent_limit;
  bool pin = true;          // one CPU per stream thread
  bool numa_local = false;  // ... chosen from the NIC's NUMA node
  std::vector<int> cpus;    // explicit CPU list; overrides the two above
  std::chrono::milliseconds connect_timeout{5000};
  int busy_retries = 0;  // BUSY answers to wait out (with the responder's hint + jitter)
};

// One direction of a run, counted at its receiver.
struct DirectionResult {
  Direction direction = Direction::kSend;  // kSend (we send) or kReceive (responder sends)
  uint32_t streams = 0;
  uint64_t bytes = 0;
  double window_seconds = 0;
  double bytes_per_second = 0;
  std::vector<double> stream_bytes_per_second;
  RateSummary per_stream;
  // Sender-side TCP_INFO.
  uint64_t retransmits = 0;
  double rtt_seconds = 0;  // mean of the streams' smoothed RTT at the window end
  // The lowest RTT any stream saw: the path's propagation delay without the queue the probe
  // itself builds (the RTT of the bandwidth-delay product). 0 when unknown.
  double min_rtt_seconds = 0;
  uint64_t cwnd_segments = 0;  // sum over streams
  double rwnd_limited_fraction = 0;
  // Throughput over what the peer's receive window allows (window / RTT),
  // the slowest-explained stream's: near 1 means the window, not the path,
  // set the rate (the bandwidth-delay arithmetic of shape 1). 0 when the
  // kernel does not report the window.
  double window_bound_ratio = 0;
  double sndbuf_limited_fraction = 0;
  // Share of the window the senders had data queued (TCP_INFO busy time over streams x
  // window); below 1 the sending application left its sockets empty. -1 when unknown.
  double sender_busy_fraction = -1;
  uint64_t mss = 0;
  uint64_t path_mtu = 0;
  uint64_t zerocopy_sends = 0;
  uint64_t zerocopy_copied = 0;
  double max_sender_thread_cpu = 0;  // fraction of one core
  double max_receiver_thread_cpu = 0;
  // TCP_NOTSENT_LOWAT the senders' sockets had (the largest, should they differ); 0 = the
  // kernel's default; -1 unknown (a responder from before it reported it).
  int64_t unsent_limit = -1;
};

struct SideCpu {
  double user_seconds = 0;
  double system_seconds = 0;
  double max_thread_cpu = 0;  // busiest stream thread, fraction of one core
  double host_busy = 0;       // all CPUs, 0..1
  double host_max_cpu_busy = 0;
  int host_max_cpu = -1;
  double softirq_seconds = 0;
};

struct SelfChecks {
  bool cpu_bound = false;
  bool contended = false;
  bool stream_limited = false;
  bool receiver_window_limited = false;
  bool send_buffer_limited = false;
  std::vector<std::string> notes;  // why each flag is set
};

struct TcpProbeResult {
  std::string peer;
  uint32_t streams = 0;
  std::string direction;
  std::string mode;
  uint32_t block = 0;       // bytes per send call
  uint32_t recv_block = 0;  // bytes per receive call
  double duration_seconds = 0;
  double warmup_seconds = 0;
  std::vector<DirectionResult> directions;
  uint64_t bytes = 0;           // all directions
  double bytes_per_second = 0;  // all directions
  SideCpu local_cpu;
  SideCpu remote_cpu;
  std::string iface;
  double link_bits_per_second = 0;  // 0 when the link speed is unknown
  // The responder's interface speed as it reported it; 0 when unknown. The path carries the
  // slower of the two.
  double responder_link_bits_per_second = 0;
  bool nic_valid = false;
  uint64_t nic_bytes = 0;           // local NIC bytes in the window, both ways
  uint64_t expected_nic_bytes = 0;  // what the probe's own traffic explains
  // The same account from the responder's NIC over its window: traffic that shares the path
  // at the far end (another sender into the peer) is invisible from this end.
  std::string responder_iface;
  bool responder_nic_valid = false;
  uint64_t responder_nic_bytes = 0;
  uint64_t responder_expected_nic_bytes = 0;
  SelfChecks checks;
};

// The context's stop request ends the run within ~50 ms with a kInterrupted
// error instead of waiting out warm-up, window and control deadlines; its
// root says where procfs and sysfs are mounted. Errors carry the control
// channel's codes (kRefused, kUnreachable, kTimeout, kBusy, kAuth), kRejected
// (the responder refused the request) and kAborted (it went away mid-run).
Result<TcpProbeResult> RunTcpProbe(const TcpProbeOptions& options, const ProbeContext& context);

struct SweepResult {
  std::vector<TcpProbeResult> runs;
  std::optional<uint32_t> saturating_streams;  // none: still growing at the last count
  double per_stream_ceiling_bytes_per_second = 0;
  double best_bytes_per_second = 0;
  bool stream_limited = false;
  std::string note;
};

// Runs each stream count in turn (same options otherwise).
Result<SweepResult> RunTcpSweep(const TcpProbeOptions& options,
                                const std::vector<uint32_t>& stream_counts,
                                const ProbeContext& context);
// The sweep verdict from per-count aggregates (pure; unit-tested).
void AnalyzeSweep(SweepResult& sweep);

}  // namespace fabric::probe
