#include "active-probes/responder/session.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <optional>

#include "active-probes/control/auth.h"
#include "active-probes/tcp/session_request.h"
#include "active-probes/tcp/unsent_limit.h"
#include "active-probes/tcp/window.h"
#include "common/log.h"

namespace fabric::probe {
namespace {

constexpr auto kStreamJoinTimeout = std::chrono::milliseconds(3000);

}  // namespace

Session::Session(const ResponderOptions& options, UniqueFd control, sockaddr_storage peer)
    : options_(options),
      control_(std::move(control)),
      peer_(peer),
      deadline_(SteadyClock::now() + options.idle_timeout * 4 + options.max_duration) {}

uint64_t Session::RemainingMs() const {
  std::lock_guard<std::mutex> lock(mu_);
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - SteadyClock::now());
  return left.count() > 0 ? static_cast<uint64_t>(left.count()) : 0;
}

void Session::Abort(std::string why) {
  std::lock_guard<std::mutex> lock(mu_);
  aborted_ = true;
  abort_reason_ = std::move(why);
  cv_.notify_all();
  shutdown(control_.fd(), SHUT_RDWR);
}

bool Session::RequesterGone() const {
  // The caller holds the responder's lock, under which the descriptor is closed (Close()),
  // so it is still this session's. POLLRDHUP: the peer's FIN, even with data unread.
  pollfd p{control_.fd(), POLLRDHUP, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

Session::Outcome Session::Fail(const std::string& why) {
  log::Info("probe session ended early", {{"peer", AddressText(peer_)}, {"reason", why}});
  return Outcome::kFailed;
}

Session::Outcome Session::Reject(const std::string& reason) {
  Message m;
  m.verb = "REJECT";
  m.Set("reason", reason);
  (void)control_.Write(m, SteadyClock::now() + options_.idle_timeout);
  log::Info("probe request rejected", {{"peer", AddressText(peer_)}, {"reason", reason}});
  return Outcome::kRejected;
}

bool Session::OfferData(UniqueFd fd, const sockaddr_storage& peer, std::string_view token,
                        uint64_t index) {
  std::lock_guard<std::mutex> lock(mu_);
  // Data streams must come from the authenticated peer's own address: the
  // responder never sends to anyone else.
  if (!accepting_data_ || !SameHost(peer, peer_) || !MacEqual(token, token_)) return false;
  if (index >= data_.size() || data_[index].valid()) return false;
  data_[index] = std::move(fd);
  ++data_count_;
  cv_.notify_all();
  return true;
}

Session::Outcome Session::RunKind(const SessionKindHandler& handler, const Message& request) {
  SessionContext ctx{options_, control_, peer_, request, [this](SteadyClock::time_point deadline) {
                       std::lock_guard<std::mutex> lock(mu_);
                       deadline_ = deadline;
                     }};
  switch (handler(ctx)) {
    case SessionKindOutcome::kCompleted:
      return Outcome::kCompleted;
    case SessionKindOutcome::kRejected:
      return Outcome::kRejected;
    case SessionKindOutcome::kFailed:
      break;
  }
  return Outcome::kFailed;
}

Session::Outcome Session::Run() {
  auto idle = [&] { return SteadyClock::now() + options_.idle_timeout; };
  std::string peer_text = AddressText(peer_);

  // Challenge-response in both directions.
  std::string server_nonce = MakeNonce();
  Message challenge;
  challenge.verb = "CHALLENGE";
  challenge.Set("nonce", server_nonce).Set("v", static_cast<uint64_t>(kProtocolVersion));
  if (!options_.fleet_digest.empty()) challenge.Set("fleet", options_.fleet_digest);
  if (auto s = control_.Write(challenge, idle()); !s.ok()) return Fail(s.error().message);
  auto auth = control_.Read(idle());
  if (!auth.ok()) return Fail(auth.error().message);
  auto client_nonce = auth->Get("cnonce");
  auto mac = auth->Get("mac");
  if (auth->verb != "AUTH" || !client_nonce || client_nonce->size() != 32 || !mac ||
      !MacEqual(*mac, ComputeMac(options_.secret, "client", server_nonce, *client_nonce))) {
    Message err;
    err.verb = "ERR";
    err.Set("reason", "auth");
    (void)control_.Write(err, idle());
    log::Warn("probe authentication failed", {{"peer", peer_text}});
    return Outcome::kAuthFailed;
  }
  Message ok;
  ok.verb = "AUTH_OK";
  ok.Set("mac", ComputeMac(options_.secret, "server", server_nonce, *client_nonce));
  if (auto s = control_.Write(ok, idle()); !s.ok()) return Fail(s.error().message);

  // The request, checked against our own limits.
  auto test_msg = control_.Read(idle());
  if (!test_msg.ok()) return Fail(test_msg.error().message);
  if (auto kind = options_.kinds.find(test_msg->verb); kind != options_.kinds.end()) {
    return RunKind(kind->second, *test_msg);
  }
  auto req = RequestFromMessage(*test_msg);
  if (!req.ok()) return Reject("bad-request");
  if (req->total() == 0) return Reject("no-streams");
  if (req->total() > options_.max_streams) {
    return Reject("streams-over-limit:" + std::to_string(options_.max_streams));
  }
  auto asked = std::chrono::milliseconds(req->duration_ms + req->warmup_ms);
  if (req->duration_ms == 0 || asked > options_.max_duration) {
    return Reject("duration-over-limit:" + std::to_string(options_.max_duration.count()) + "ms");
  }
  if (req->block == 0 || req->block > (4u << 20)) return Reject("block-out-of-range");
  auto payload = Payload::Create(req->block, req->down > 0 ? req->mode : SendMode::kCopy);
  if (!payload.ok()) return Fail(payload.error().message);

  {
    std::lock_guard<std::mutex> lock(mu_);
    token_ = MakeNonce();
    data_.resize(req->total());
    accepting_data_ = true;
    deadline_ = SteadyClock::now() + asked + options_.idle_timeout * 3;
  }
  Message accept;
  accept.verb = "ACCEPT";
  accept.Set("token", token_);
  if (auto s = control_.Write(accept, idle()); !s.ok()) return Fail(s.error().message);

  // The reason is logged after the lock is released: a write to a blocked stderr must not
  // hold up the accept thread, which takes this lock (Abort, OfferData) under its own.
  std::optional<std::string> connect_failure;
  {
    std::unique_lock<std::mutex> lock(mu_);
    bool all =
        cv_.wait_until(lock, idle(), [&] { return aborted_ || data_count_ == data_.size(); });
    accepting_data_ = false;
    if (aborted_) {
      connect_failure = abort_reason_;
    } else if (!all) {
      connect_failure = "data streams did not all connect within the idle timeout";
    }
  }
  if (connect_failure) return Fail(*connect_failure);

  // Per-session byte limit, split over the streams that carry payload.
  uint64_t per_stream_limit = options_.max_bytes == 0 ? 0 : options_.max_bytes / req->total();
  StreamSet streams(*payload, req->mode, per_stream_limit, req->recv_block,
                    req->unsent_limit.value_or(AutoUnsentLimit(req->down, req->block)));
  std::vector<StreamSpec> specs;
  std::vector<bool> send;
  std::vector<int> cpus = options_.pin ? AllowedCpus() : std::vector<int>{};
  int rcvbuf = req->peer_rcvbuf != 0 ? static_cast<int>(req->peer_rcvbuf) : options_.rcvbuf;
  int sndbuf = req->peer_sndbuf != 0 ? static_cast<int>(req->peer_sndbuf) : options_.sndbuf;
  for (size_t i = 0; i < data_.size(); ++i) {
    StreamSpec spec;
    spec.fd = std::move(data_[i]);
    spec.send = i >= req->up;
    spec.cpu = cpus.empty() ? -1 : cpus[i % cpus.size()];
    if (rcvbuf > 0) setsockopt(spec.fd.get(), SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    if (sndbuf > 0) setsockopt(spec.fd.get(), SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
    // The accept path turned Nagle off for the first line; bulk data wants it on.
    int zero = 0;
    setsockopt(spec.fd.get(), IPPROTO_TCP, TCP_NODELAY, &zero, sizeof(zero));
    send.push_back(spec.send);
    specs.push_back(std::move(spec));
  }
  streams.CountInto(&moved_bytes_);
  if (auto s = streams.Start(std::move(specs)); !s.ok()) return Reject("streams-failed");
  std::string iface = InterfaceForAddress(LocalAddress(control_.fd()));
  const int64_t mtu_start = ReadInterfaceMtu(options_.root, iface);

  Message ready;
  ready.verb = "READY";
  if (auto s = control_.Write(ready, idle()); !s.ok()) return Fail(s.error().message);

  // Window edges arrive as MARK messages; their own deadlines bound the run.
  auto mark_start = control_.Read(SteadyClock::now() + std::chrono::milliseconds(req->warmup_ms) +
                                  options_.idle_timeout);
  if (!mark_start.ok() || mark_start->verb != "MARK") {
    streams.Abort();
    return Fail(mark_start.ok() ? "expected MARK" : mark_start.error().message);
  }
  WindowEdge a = SampleEdge(streams, options_.root, iface);
  auto mark_end = control_.Read(SteadyClock::now() + std::chrono::milliseconds(req->duration_ms) +
                                options_.idle_timeout);
  if (!mark_end.ok() || mark_end->verb != "MARK") {
    streams.Abort();
    return Fail(mark_end.ok() ? "expected MARK" : mark_end.error().message);
  }
  WindowEdge b = SampleEdge(streams, options_.root, iface);
  const int64_t mtu_end = ReadInterfaceMtu(options_.root, iface);
  streams.StopSending();
  streams.Join(kStreamJoinTimeout);

  SideReport report = DiffEdges(a, b, send);
  report.iface = iface;
  report.mtu_start = mtu_start;
  report.mtu_end = mtu_end;
  report.link_bps = ReadLinkSpeedBps(options_.root.sysfs(), iface);
  if (auto s = control_.Write(SideReportToMessage(report), idle()); !s.ok()) {
    return Fail(s.error().message);
  }
  (void)control_.Read(idle());  // BYE, or the peer closing
  log::Info("probe session completed", {{"peer", peer_text},
                                        {"streams", std::to_string(req->total())},
                                        {"window_seconds", std::to_string(report.window_seconds)}});
  return Outcome::kCompleted;
}

}  // namespace fabric::probe
