// One admitted probe session on the responder: authentication, the TEST
// request checked against the responder's limits, the data streams, the
// window marks and the RESULT. Runs on its own thread; any failure or a
// closed control connection aborts it and frees the responder for the next.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "active-probes/control/conn.h"
#include "active-probes/responder/responder.h"
#include "common/unique_fd.h"

namespace fabric::probe {

class Session {
 public:
  enum class Outcome { kCompleted, kFailed, kAuthFailed, kRejected };

  Session(const ResponderOptions& options, UniqueFd control, sockaddr_storage peer);

  // The session's whole life; returns how it ended.
  Outcome Run();
  // A data connection that presented token/index; false if it does not belong
  // (the caller closes it).
  bool OfferData(UniqueFd fd, const sockaddr_storage& peer, std::string_view token, uint64_t index);
  // Closes the control connection so Run() returns promptly; `why` is what the session's
  // end is logged with.
  void Abort(std::string why = "responder stopping");
  // True once the requester has closed its control connection (a probe that was interrupted,
  // or a session opened and dropped): the session ends as soon as its thread notices, so it
  // is no reason to answer the next requester BUSY.
  bool RequesterGone() const;
  // Closes the control connection; the requester waits for this EOF after
  // BYE, so it is sent only once the responder is free for the next session.
  void Close() { control_.handle().Reset(); }
  // Milliseconds until this session's own deadline, for BUSY's retry hint.
  uint64_t RemainingMs() const;
  // Bytes the session's TCP data streams moved (both directions, warm-up
  // included); complete once Run() has returned.
  uint64_t moved_bytes() const { return moved_bytes_.load(std::memory_order_relaxed); }

 private:
  Outcome Fail(const std::string& why);
  // Hands an authenticated session to a registered probe kind.
  Outcome RunKind(const SessionKindHandler& handler, const Message& request);
  Outcome Reject(const std::string& reason);

  const ResponderOptions& options_;
  LineConn control_;
  sockaddr_storage peer_;
  std::string token_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<UniqueFd> data_;  // guarded by mu_, indexed by stream
  size_t data_count_ = 0;
  bool accepting_data_ = false;
  bool aborted_ = false;
  std::string abort_reason_;
  std::atomic<uint64_t> moved_bytes_{0};
  SteadyClock::time_point deadline_;
};

}  // namespace fabric::probe
