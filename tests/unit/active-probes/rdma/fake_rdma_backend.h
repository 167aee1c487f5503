// A fake RDMA data path for the control-channel tests: the target "registers"
// a region and waits for QP connects carrying its token; the initiator
// "connects" by presenting the token it received over the control channel and
// reports synthetic completions to the real WindowCounter. What it checks is
// the exchange, not the verbs calls (those need hardware: tests/hw/).
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "active-probes/rdma/backend.h"

namespace fabric::probe::testing {

struct FakeFabric {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> presented_tokens;  // by initiators' QP connects
  int regions_registered = 0;
  int regions_deregistered = 0;
  RdmaRegion last_region;
  std::string last_target_token;
  RdmaTargetRequest last_target_request;
  RdmaInitiatorRequest last_initiator_request;
  std::string token_override;  // initiator presents this instead (wrong-token test)
  uint32_t local_active_mtu = 1024;
  uint64_t completions_per_poll = 2;
};

class FakeTarget : public RdmaTarget {
 public:
  explicit FakeTarget(FakeFabric& f) : f_(f) {}
  ~FakeTarget() override {
    std::lock_guard<std::mutex> lock(f_.mu);
    if (registered_) ++f_.regions_deregistered;
  }
  Result<RdmaRegion> Prepare(const RdmaTargetRequest& request) override {
    std::lock_guard<std::mutex> lock(f_.mu);
    request_ = request;
    registered_ = true;
    ++f_.regions_registered;
    RdmaRegion r;
    r.addr = 0x7f0012340000;
    r.rkey = 0xabcdef;
    r.length = request.region_bytes;
    r.cm_port = 18515;
    r.device = "fake0";
    r.port = 1;
    r.active_mtu = 4096;
    f_.last_region = r;
    f_.last_target_token = request.token;
    f_.last_target_request = request;
    return r;
  }
  Status AcceptQps(SteadyClock::time_point deadline) override {
    std::unique_lock<std::mutex> lock(f_.mu);
    bool all = f_.cv.wait_until(lock, deadline, [&] {
      size_t n = 0;
      for (const auto& t : f_.presented_tokens) n += t == request_.token;
      return n >= request_.qps;
    });
    if (!all) return MakeError(ErrorCode::kTimeout, "timeout: queue pairs did not connect");
    return OkStatus();
  }

 private:
  FakeFabric& f_;
  RdmaTargetRequest request_;
  bool registered_ = false;
};

class FakeInitiator : public RdmaInitiator {
 public:
  explicit FakeInitiator(FakeFabric& f) : f_(f) {}
  Result<RdmaInitiatorInfo> Connect(const RdmaInitiatorRequest& request) override {
    std::lock_guard<std::mutex> lock(f_.mu);
    f_.last_initiator_request = request;
    qps_ = request.qps;
    stop_ = request.stop;
    for (uint32_t i = 0; i < request.qps; ++i) {
      f_.presented_tokens.push_back(f_.token_override.empty() ? request.token : f_.token_override);
    }
    f_.cv.notify_all();
    RdmaInitiatorInfo info;
    info.device = "fake0";
    info.port = 1;
    info.active_mtu = f_.local_active_mtu;
    info.path_mtu = std::min(f_.local_active_mtu, request.remote.active_mtu);
    return info;
  }
  Result<RdmaRunStats> Run(WindowCounter& counter, int64_t start_ns, int64_t,
                           const WindowEdgeFn& edge) override {
    bool started = false;
    for (;;) {
      // As the verbs data path: a stop request ends the run within a sweep.
      if (stop_.stop_requested()) {
        return MakeError(ErrorCode::kInterrupted, "interrupted: during the fake run");
      }
      int64_t now = MonotonicNs();
      if (!started && now >= start_ns) {
        edge(false);
        started = true;
        now = MonotonicNs();
      }
      for (uint32_t q = 0; q < qps_; ++q) counter.Poll(now, q, f_.completions_per_poll * (q + 1));
      if (counter.done()) {
        edge(true);
        break;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    RdmaRunStats s;
    s.mean_outstanding_fraction = 1.0;
    return s;
  }

 private:
  FakeFabric& f_;
  uint32_t qps_ = 0;
  StopToken stop_;
};

class FakeRdmaBackend : public RdmaBackend {
 public:
  Result<std::unique_ptr<RdmaTarget>> NewTarget() override {
    return std::unique_ptr<RdmaTarget>(new FakeTarget(fabric));
  }
  Result<std::unique_ptr<RdmaInitiator>> NewInitiator() override {
    return std::unique_ptr<RdmaInitiator>(new FakeInitiator(fabric));
  }
  FakeFabric fabric;
};

}  // namespace fabric::probe::testing
