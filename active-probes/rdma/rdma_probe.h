// The RDMA WRITE bandwidth probe (ib_write_bw class): RdmaProbeOptions in,
// RdmaProbeResult out. Used by `fabric_probe rdma` and schedulable from
// fabric_exporter. Runs against a Responder that registered the RDMA session
// kind (AddRdmaSessionKind); the control channel, authentication and admission
// are the TCP probe's. Bandwidth is counted from send completions on
// CLOCK_MONOTONIC inside a window that excludes warm-up.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "active-probes/control/conn.h"
#include "active-probes/probe/probe.h"
#include "active-probes/rdma/ib_sysfs.h"
#include "common/result.h"

namespace fabric::probe {

class RdmaBackend;

struct RdmaProbeOptions {
  HostPort peer;
  std::string bind_address;  // source address; empty = the route's
  std::string secret;
  std::string device;       // RDMA device to use; empty = the one holding the source address
  uint32_t qps = 4;         // RC queue pairs
  uint32_t size = 65536;    // bytes per RDMA WRITE
  uint32_t tx_depth = 128;  // outstanding work requests per QP
  std::chrono::milliseconds duration{5000};
  std::chrono::milliseconds warmup{1000};
  std::chrono::milliseconds connect_timeout{5000};
  int busy_retries = 0;
};

// Limits a request must respect on both sides (the responder has its own too).
inline constexpr uint32_t kMaxRdmaQps = 256;
inline constexpr uint32_t kMaxRdmaTxDepth = 8192;
inline constexpr uint32_t kMaxRdmaMessage = 1u << 30;

// Checks ranges and that the peer and secret are set; errors (kUsage) name the flag.
Status ValidateRdmaOptions(const RdmaProbeOptions& o);

struct RdmaQpResult {
  uint64_t bytes = 0;  // completed inside the window
  uint64_t messages = 0;
  double bytes_per_second = 0;
};

struct RdmaSideCpu {
  double user_seconds = 0;  // process, over the whole run
  double system_seconds = 0;
  double poll_thread_core_fraction = 0;  // the completion-polling thread over the window
};

struct RdmaProbeResult {
  std::string peer;
  std::string device;  // ours
  uint32_t port = 0;
  std::string netdev;
  std::string link_layer;  // "Ethernet" (RoCE) or "InfiniBand"
  double link_bits_per_second = 0;
  std::string remote_device;
  uint32_t remote_port = 0;
  uint32_t qps = 0;
  uint32_t size = 0;
  uint32_t tx_depth = 0;
  uint32_t local_active_mtu = 0;  // bytes
  uint32_t remote_active_mtu = 0;
  uint32_t mtu = 0;  // the smaller of the two, what the QPs use
  double duration_seconds = 0;
  double warmup_seconds = 0;
  double window_seconds = 0;  // measured, between completion timestamps
  uint64_t bytes = 0;
  uint64_t total_bytes = 0;  // Warm-up and drain included: what the port carried for the run.
  uint64_t messages = 0;
  double bytes_per_second = 0;
  double messages_per_second = 0;
  std::vector<RdmaQpResult> per_qp;
  double qp_min_bytes_per_second = 0;
  double qp_max_bytes_per_second = 0;
  // Port counters across the window: ours (sender) and the responder's.
  PortCounterDelta local_counters;
  PortCounterDelta remote_counters;
  PortCounters local_counters_before;  // raw readings at the window edges
  PortCounters local_counters_after;
  RdmaSideCpu local_cpu;
  RdmaSideCpu remote_cpu;
  // Self-check verdicts, in the TCP probe's vocabulary.
  bool cpu_bound = false;
  bool contended = false;
  bool qp_limited = false;           // TCP's stream_limited: per-QP ceiling, uneven or few QPs
  bool congested = false;            // CNPs or receive-buffer drops in the window
  bool counters_consistent = false;  // port_xmit_data agrees with the completions
  std::vector<std::string> notes;
};

// Runs one probe with the build's backend (verbs, or "no RDMA device" without
// rdma-core). The context's stop request (a signal, the exporter's shutdown)
// ends the run within ~50 ms with a kInterrupted error; the queue pairs and the
// region are torn down on the way out, and the responder sees the control
// connection close. Its root says where sysfs is (the RDMA ports and their
// counters). Errors carry the control channel's codes, kNoDevice and
// kNoActivePort (our port or the responder's is down), kRejected.
Result<RdmaProbeResult> RunRdmaProbe(const RdmaProbeOptions& options, const ProbeContext& context);
// The same with an explicit backend (tests use a fake one).
Result<RdmaProbeResult> RunRdmaProbe(const RdmaProbeOptions& options, const ProbeContext& context,
                                     RdmaBackend& backend);

}  // namespace fabric::probe
