// The RDMA data path behind a small interface: the verbs/rdma_cm
// implementation (verbs_backend.cc, built with FABRIC_WITH_VERBS), one that
// answers "no RDMA device" in builds without rdma-core, and the tests' fake.
// The control-channel flow (rdma_probe.cc, rdma_session.cc) only talks to this
// interface, so all of it is tested without a device.
#pragma once

#include <sys/socket.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "active-probes/control/conn.h"
#include "active-probes/rdma/window_counter.h"
#include "common/result.h"
#include "common/stop_token.h"

namespace fabric::probe {

// What the responder advertises over the control channel.
struct RdmaRegion {
  uint64_t addr = 0;
  uint32_t rkey = 0;
  uint64_t length = 0;
  uint16_t cm_port = 0;  // rdma_cm listener port on the responder's address
  std::string device;
  uint32_t port = 0;
  uint32_t active_mtu = 0;  // bytes
};

struct RdmaTargetRequest {
  sockaddr_storage local{};  // the responder's address the requester reached
  sockaddr_storage peer{};   // the authenticated requester: QPs from elsewhere are refused
  uint32_t qps = 0;
  uint64_t region_bytes = 0;
  std::string token;  // QP connect requests must carry it as private data
};

// Passive side, one session. Destruction tears everything down, the memory
// region included.
class RdmaTarget {
 public:
  virtual ~RdmaTarget() = default;
  // Registers the region (remote write only) and listens for QPs.
  virtual Result<RdmaRegion> Prepare(const RdmaTargetRequest& request) = 0;
  // Accepts request.qps connections carrying the token from the peer.
  virtual Status AcceptQps(SteadyClock::time_point deadline) = 0;
};

struct RdmaInitiatorRequest {
  sockaddr_storage local{};  // our control-connection address: the source for rdma_cm
  sockaddr_storage peer{};   // the responder's address
  std::string token;
  uint32_t qps = 0;
  uint32_t size = 0;
  uint32_t tx_depth = 0;
  RdmaRegion remote;
  std::chrono::milliseconds timeout{5000};  // address/route resolution and connect
  // Connect and Run fail with ErrorCode::kInterrupted soon after a stop is requested.
  StopToken stop;
};

struct RdmaInitiatorInfo {
  std::string device;
  uint32_t port = 0;
  uint32_t active_mtu = 0;  // ours
  uint32_t path_mtu = 0;    // what the connected QPs use
};

struct RdmaRunStats {
  double poll_thread_cpu_seconds = 0;  // the posting/polling thread, over the window
  // Mean WRs outstanding per QP when polled inside the window, as a fraction
  // of tx_depth: well under 1 means the poster could not keep up.
  double mean_outstanding_fraction = 0;
};

// Called by the polling loop at the first poll at or after the window's
// start (false) and its end (true); samples counters, sends MARK.
using WindowEdgeFn = std::function<void(bool end)>;

// Active side: connects the QPs and posts RDMA WRITEs.
class RdmaInitiator {
 public:
  virtual ~RdmaInitiator() = default;
  virtual Result<RdmaInitiatorInfo> Connect(const RdmaInitiatorRequest& request) = 0;
  // Keeps tx_depth WRITEs outstanding per QP until `counter` is done, then
  // drains. Every poll is reported to `counter` with its CLOCK_MONOTONIC time.
  virtual Result<RdmaRunStats> Run(WindowCounter& counter, int64_t start_ns, int64_t end_ns,
                                   const WindowEdgeFn& edge) = 0;
};

class RdmaBackend {
 public:
  virtual ~RdmaBackend() = default;
  virtual Result<std::unique_ptr<RdmaTarget>> NewTarget() = 0;
  virtual Result<std::unique_ptr<RdmaInitiator>> NewInitiator() = 0;
};

// verbs + rdma_cm when built with FABRIC_WITH_VERBS; otherwise every call
// fails with ErrorCode::kNoDevice ("built without rdma-core").
RdmaBackend& DefaultRdmaBackend();
// Whether this build has the verbs backend.
bool RdmaBuiltWithVerbs();

// CLOCK_MONOTONIC in nanoseconds.
int64_t MonotonicNs();

}  // namespace fabric::probe
