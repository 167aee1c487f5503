// Responder: the server side of every fabric probe, runnable inside
// fabric_probe serve or inside fabric_exporter. One listening port carries the
// control connection and the data streams. Safety is enforced here, not
// trusted from the requester: an allow-list of peer CIDRs checked at accept,
// HMAC challenge-response on a shared secret, one session at a time (others get
// BUSY with a retry hint), hard limits on streams, duration and bytes, an idle
// timeout on every control read, and data is only ever sent on connections the
// authenticated requester opened to us.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "active-probes/control/cidr.h"
#include "active-probes/control/conn.h"
#include "active-probes/responder/session_kind.h"
#include "common/read/sysroot.h"
#include "common/result.h"
#include "common/unique_fd.h"

namespace fabric::probe {

inline constexpr uint16_t kDefaultResponderPort = 9878;

struct ResponderOptions {
  std::vector<HostPort> listen;  // port 0 picks a free port (tests)
  std::vector<Cidr> allow;
  std::string secret;
  uint32_t max_streams = 64;
  std::chrono::milliseconds max_duration{60000};  // warm-up + window
  uint64_t max_bytes = 0;                         // per session, 0 = no limit
  std::chrono::milliseconds idle_timeout{5000};
  int rcvbuf = 0;  // SO_RCVBUF on data sockets; 0 = autotune (a request may ask for its own)
  int sndbuf = 0;
  bool pin = false;  // pin stream threads round-robin over the allowed CPUs
  // Where procfs and sysfs are mounted (the host's by default; a container
  // points it at the host's mounts).
  SysRoot root;
  // Probe kinds other than TCP, by request verb (see session_kind.h).
  SessionKinds kinds;
  // Called on the session thread after each session with its wall time and the
  // bytes its TCP data streams moved (the exporter counts the time it served
  // against its probe budget and publishes both).
  std::function<void(double seconds, uint64_t bytes)> on_session_end;
  // This node's fleet digest (empty: none, `fabric_probe serve`). A HELLO
  // carrying another is refused with ERR reason=fleet-mismatch and this
  // digest; a HELLO without one (an older requester) is served as before.
  std::string fleet_digest;
  // Called on the responder's thread with each HELLO's source address and
  // fleet digest ("" when it carries none).
  std::function<void(const std::string& address, const std::string& digest)> on_requester_fleet;
};

struct ResponderCounters {
  uint64_t sessions_completed = 0;
  uint64_t sessions_failed = 0;
  uint64_t busy_answers = 0;
  uint64_t auth_failures = 0;
  uint64_t not_allowed = 0;
  uint64_t rejected_requests = 0;
  uint64_t fleet_mismatches = 0;
};

class Session;

class Responder {
 public:
  explicit Responder(ResponderOptions options);
  ~Responder();  // Stops.
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;

  // Binds every listen address and starts serving; returns the bind error.
  Status Start();
  // Aborts a running session and stops serving; idempotent.
  void Stop();
  // The addresses actually bound (with the chosen port where 0 was asked).
  std::vector<HostPort> bound() const { return bound_; }
  ResponderCounters counters() const;

 private:
  struct Pending {
    UniqueFd fd;
    sockaddr_storage peer{};
    std::string buf;
    SteadyClock::time_point deadline;
  };
  void AcceptLoop();
  void Accept(int listen_fd, std::vector<Pending>& pending);
  // Handles a pending connection's first line; the fd is consumed.
  void Dispatch(Pending p);
  void Count(uint64_t ResponderCounters::*field);

  ResponderOptions options_;
  std::vector<UniqueFd> listeners_;
  std::vector<HostPort> bound_;
  UniqueFd wake_;  // eventfd that stops the accept loop
  std::thread accept_thread_;
  std::atomic<bool> stopping_{false};

  mutable std::mutex mu_;
  std::shared_ptr<Session> session_;  // guarded by mu_
  std::thread session_thread_;        // only touched by the accept thread and Stop
  ResponderCounters counters_;        // guarded by mu_
};

}  // namespace fabric::probe
