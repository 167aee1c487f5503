#include "active-probes/responder/responder.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "active-probes/control/message.h"
#include "active-probes/responder/session.h"
#include "common/log.h"
#include "common/thread_name.h"

namespace fabric::probe {
namespace {

// Connections that have not yet said what they are. Bounded so a flood of
// silent connections costs a fixed amount of memory; the oldest is dropped.
constexpr size_t kMaxPending = 64;
// The first line of a connection (HELLO or DATA) is short.
constexpr size_t kMaxFirstLine = 256;

void SendBestEffort(int fd, const Message& m) {
  std::string line = FormatMessage(m);
  (void)::send(fd, line.data(), line.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

}  // namespace

Responder::Responder(ResponderOptions options) : options_(std::move(options)) {}

Responder::~Responder() { Stop(); }

Status Responder::Start() {
  if (options_.secret.size() < 16) return MakeError("responder: secret under 16 bytes");
  if (options_.allow.empty()) return MakeError("responder: empty allow-list");
  for (const auto& addr : options_.listen) {
    auto fd = Listen(addr);
    if (!fd.ok()) return Unexpected{fd.error()};
    HostPort actual = addr;
    sockaddr_storage local = LocalAddress(fd->get());
    actual.port =
        ntohs(local.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&local)->sin6_port
                                          : reinterpret_cast<sockaddr_in*>(&local)->sin_port);
    bound_.push_back(actual);
    listeners_.push_back(std::move(*fd));
  }
  if (listeners_.empty()) return MakeError("responder: no listen address");
  wake_.Reset(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!wake_.valid()) return MakeError(std::string("eventfd: ") + std::strerror(errno));
  accept_thread_ = std::thread([this] {
    NameThisThread("resp-accept");
    AcceptLoop();
  });
  return OkStatus();
}

void Responder::Stop() {
  if (stopping_.exchange(true)) return;
  if (wake_.valid()) {
    uint64_t one = 1;
    (void)::write(wake_.get(), &one, sizeof(one));
  }
  if (accept_thread_.joinable()) accept_thread_.join();
  // The ports are free once Stop returns: a config reload starts the next responder on them.
  listeners_.clear();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (session_) session_->Abort();
  }
  if (session_thread_.joinable()) session_thread_.join();
}

ResponderCounters Responder::counters() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counters_;
}

void Responder::Count(uint64_t ResponderCounters::*field) {
  std::lock_guard<std::mutex> lock(mu_);
  ++(counters_.*field);
}

void Responder::AcceptLoop() {
  std::vector<Pending> pending;
  while (!stopping_.load()) {
    std::vector<pollfd> fds;
    fds.push_back({wake_.get(), POLLIN, 0});
    for (const auto& l : listeners_) fds.push_back({l.get(), POLLIN, 0});
    for (const auto& p : pending) fds.push_back({p.fd.get(), POLLIN, 0});
    int timeout_ms = 1000;
    for (const auto& p : pending) {
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(p.deadline - SteadyClock::now());
      timeout_ms = std::min<int>(timeout_ms, std::max<int>(0, static_cast<int>(left.count())));
    }
    int n = ::poll(fds.data(), fds.size(), timeout_ms);
    if (n < 0 && errno != EINTR) {
      log::Error("responder poll failed", {{"error", std::strerror(errno)}});
      return;
    }
    if (stopping_.load()) break;
    // Reap a finished session so the slot frees even with no new connection.
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (!session_ && session_thread_.joinable()) {
        lock.unlock();
        session_thread_.join();
      }
    }
    size_t first_pending = 1 + listeners_.size();
    std::vector<Pending> still;
    for (size_t i = 0; i < pending.size(); ++i) {
      Pending& p = pending[i];
      short ev = fds[first_pending + i].revents;
      if (ev != 0) {
        char buf[kMaxFirstLine];
        ssize_t r = ::recv(p.fd.get(), buf, sizeof(buf) - p.buf.size(), MSG_DONTWAIT);
        if (r <= 0) {
          if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
            still.push_back(std::move(p));
          }
          continue;  // closed or failed: drop
        }
        p.buf.append(buf, static_cast<size_t>(r));
        if (p.buf.find('\n') != std::string::npos) {
          Dispatch(std::move(p));
          continue;
        }
        if (p.buf.size() >= kMaxFirstLine - 1) continue;  // no newline in time: drop
      }
      if (SteadyClock::now() >= p.deadline) continue;  // silent or trickling: drop
      still.push_back(std::move(p));
    }
    pending = std::move(still);
    for (size_t i = 0; i < listeners_.size(); ++i) {
      if (fds[1 + i].revents & POLLIN) Accept(listeners_[i].get(), pending);
    }
  }
}

void Responder::Accept(int listen_fd, std::vector<Pending>& pending) {
  Pending p;
  socklen_t len = sizeof(p.peer);
  p.fd.Reset(::accept4(listen_fd, reinterpret_cast<sockaddr*>(&p.peer), &len, SOCK_CLOEXEC));
  if (!p.fd.valid()) return;
  if (!AllowListContains(options_.allow, p.peer)) {
    Count(&ResponderCounters::not_allowed);
    log::Warn("probe connection refused: peer not in allow-list", {{"peer", AddressText(p.peer)}});
    Message err;
    err.verb = "ERR";
    err.Set("reason", "not-allowed");
    SendBestEffort(p.fd.get(), err);
    return;
  }
  int one = 1;
  setsockopt(p.fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  p.deadline = SteadyClock::now() + options_.idle_timeout;
  if (pending.size() >= kMaxPending) pending.erase(pending.begin());
  pending.push_back(std::move(p));
}

void Responder::Dispatch(Pending p) {
  std::string line = p.buf.substr(0, p.buf.find('\n'));
  auto msg = ParseMessage(line);
  if (!msg.ok()) return;
  std::unique_lock<std::mutex> lock(mu_);
  if (msg->verb == "DATA") {
    auto index = msg->Uint("index");
    auto token = msg->Get("token");
    if (session_ && index.ok() && token) {
      // A data connection carries nothing past its header until READY, so no
      // payload byte was consumed with the header.
      session_->OfferData(std::move(p.fd), p.peer, *token, *index);
    }
    return;
  }
  if (msg->verb != "HELLO") return;
  const std::string fleet = msg->Get("fleet").value_or("");
  if (options_.on_requester_fleet) options_.on_requester_fleet(AddressText(p.peer), fleet);
  if (!options_.fleet_digest.empty() && !fleet.empty() && fleet != options_.fleet_digest) {
    // Another plan: neither side may measure on it, and no session slot is taken.
    ++counters_.fleet_mismatches;  // Under mu_, taken above.
    Message err;
    err.verb = "ERR";
    err.Set("reason", "fleet-mismatch").Set("fleet", options_.fleet_digest);
    SendBestEffort(p.fd.get(), err);
    return;
  }
  if (session_ && session_->RequesterGone()) {
    // Its requester has left (an interrupted probe): end it now rather than answer BUSY with
    // a retry hint of up to the session's whole deadline because its thread has not yet seen
    // the EOF. It is joined below.
    session_->Abort("requester closed the session");
  } else if (session_) {
    ++counters_.busy_answers;
    // Retry hint: the running session's own deadline plus jitter, so
    // requesters queued behind it do not all return at once.
    static thread_local std::mt19937 rng{std::random_device{}()};
    uint64_t retry = session_->RemainingMs() + 200 + rng() % 1000;
    Message busy;
    busy.verb = "BUSY";
    busy.Set("retry_ms", retry);
    SendBestEffort(p.fd.get(), busy);
    return;
  }
  lock.unlock();
  if (session_thread_.joinable()) session_thread_.join();
  lock.lock();
  auto session = std::make_shared<Session>(options_, std::move(p.fd), p.peer);
  session_ = session;
  session_thread_ = std::thread([this, session] {
    NameThisThread("resp-session");
    const auto start = SteadyClock::now();
    Session::Outcome outcome = session->Run();
    if (options_.on_session_end) {
      options_.on_session_end(std::chrono::duration<double>(SteadyClock::now() - start).count(),
                              session->moved_bytes());
    }
    std::lock_guard<std::mutex> guard(mu_);
    switch (outcome) {
      case Session::Outcome::kCompleted:
        ++counters_.sessions_completed;
        break;
      case Session::Outcome::kAuthFailed:
        ++counters_.auth_failures;
        break;
      case Session::Outcome::kRejected:
        ++counters_.rejected_requests;
        break;
      case Session::Outcome::kFailed:
        ++counters_.sessions_failed;
        break;
    }
    session_.reset();
    session->Close();
  });
}

}  // namespace fabric::probe
