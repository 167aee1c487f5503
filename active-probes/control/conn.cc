#include "active-probes/control/conn.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/stop_token.h"
#include "common/strings.h"

namespace fabric::probe {
namespace {

int MillisUntil(SteadyClock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
  return left.count() < 0 ? 0 : static_cast<int>(left.count());
}

constexpr int kStopped = -2;

// poll(2) on one fd until the deadline, retried on EINTR, in slices when the
// work can be stopped: >0 ready, 0 deadline passed, -1 error, or kStopped.
int PollUntil(int fd, short events, SteadyClock::time_point deadline, const StopToken& stop) {
  for (;;) {
    if (stop.stop_requested()) return kStopped;
    const int left = MillisUntil(deadline);
    const int slice = stop.stop_possible() ? std::min<int>(left, kStopSlice.count()) : left;
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, slice);
    if (n < 0 && errno == EINTR) continue;
    if (n != 0 || slice == left) return n;
  }
}

Unexpected Interrupted() {
  return MakeError(ErrorCode::kInterrupted, "interrupted: stopped (shutdown)");
}

Result<sockaddr_storage> Resolve(const std::string& host, uint16_t port, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  addrinfo* res = nullptr;
  std::string port_text = std::to_string(port);
  int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), port_text.c_str(), &hints, &res);
  if (rc != 0) {
    return MakeError(ErrorCode::kUnreachable,
                     "unreachable: cannot resolve " + Quote(host) + ": " + gai_strerror(rc));
  }
  sockaddr_storage ss{};
  std::memcpy(&ss, res->ai_addr, res->ai_addrlen);
  freeaddrinfo(res);
  return ss;
}

socklen_t AddrLen(const sockaddr_storage& ss) {
  return ss.ss_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
}

std::string Describe(const HostPort& p) {
  bool v6 = p.host.find(':') != std::string::npos;
  return (v6 ? "[" + p.host + "]" : p.host) + ":" + std::to_string(p.port);
}

}  // namespace

Result<std::string> ResolveAddressText(const std::string& host) {
  auto addr = Resolve(host, 0, false);
  if (!addr.ok()) return Unexpected{addr.error()};
  char text[NI_MAXHOST];
  int rc = getnameinfo(reinterpret_cast<const sockaddr*>(&*addr), AddrLen(*addr), text,
                       sizeof(text), nullptr, 0, NI_NUMERICHOST);
  if (rc != 0) {
    return MakeError(ErrorCode::kUnreachable, "unreachable: cannot print the address of " +
                                                  Quote(host) + ": " + gai_strerror(rc));
  }
  return std::string(text);
}

Result<HostPort> ParseHostPort(std::string_view text, uint16_t default_port) {
  HostPort hp;
  hp.port = default_port;
  std::string_view port_text;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string_view::npos) return MakeError("missing ] in " + Quote(text));
    hp.host = std::string(text.substr(1, close - 1));
    std::string_view rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return MakeError("expected :PORT after ] in " + Quote(text));
      port_text = rest.substr(1);
    }
  } else if (std::count(text.begin(), text.end(), ':') == 1) {
    auto colon = text.find(':');
    hp.host = std::string(text.substr(0, colon));
    port_text = text.substr(colon + 1);
  } else {
    hp.host = std::string(text);
  }
  if (!port_text.empty()) {
    auto port = ParseUint64(port_text);
    if (!port || *port == 0 || *port > 65535) return MakeError("bad port in " + Quote(text));
    hp.port = static_cast<uint16_t>(*port);
  }
  return hp;
}

Result<UniqueFd> Dial(const HostPort& peer, const std::string& bind_address,
                      std::chrono::milliseconds timeout, int rcvbuf, int sndbuf, bool nodelay,
                      const StopToken& stop) {
  auto addr = Resolve(peer.host, peer.port, false);
  if (!addr.ok()) return Unexpected{addr.error()};
  UniqueFd fd(::socket(addr->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return MakeError(std::string("socket: ") + std::strerror(errno));
  if (rcvbuf > 0) setsockopt(fd.get(), SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
  if (sndbuf > 0) setsockopt(fd.get(), SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
  if (!bind_address.empty()) {
    auto local = Resolve(bind_address, 0, true);
    if (!local.ok()) return Unexpected{local.error()};
    if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&*local), AddrLen(*local)) != 0) {
      return MakeError("bind " + bind_address + ": " + std::strerror(errno));
    }
  }
  int rc = ::connect(fd.get(), reinterpret_cast<sockaddr*>(&*addr), AddrLen(*addr));
  if (rc != 0 && errno != EINPROGRESS) {
    int err = errno;
    const bool refused = err == ECONNREFUSED;
    return MakeError(refused ? ErrorCode::kRefused : ErrorCode::kUnreachable,
                     std::string(refused ? "refused" : "unreachable") + ": connect to " +
                         Describe(peer) + ": " + std::strerror(err));
  }
  if (rc != 0) {
    int n = PollUntil(fd.get(), POLLOUT, SteadyClock::now() + timeout, stop);
    if (n == kStopped) return Interrupted();
    if (n == 0) {
      return MakeError(ErrorCode::kTimeout, "timeout: no answer from " + Describe(peer) +
                                                " within " + std::to_string(timeout.count()) +
                                                " ms");
    }
    int err = 0;
    socklen_t len = sizeof(err);
    getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      const ErrorCode code = err == ECONNREFUSED ? ErrorCode::kRefused
                             : err == ETIMEDOUT  ? ErrorCode::kTimeout
                                                 : ErrorCode::kUnreachable;
      const char* kind = err == ECONNREFUSED ? "refused"
                         : err == ETIMEDOUT  ? "timeout"
                                             : "unreachable";
      return MakeError(
          code, std::string(kind) + ": connect to " + Describe(peer) + ": " + std::strerror(err));
    }
  }
  int flags = fcntl(fd.get(), F_GETFL);
  fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
  int on = nodelay ? 1 : 0;
  setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
  return fd;
}

Result<UniqueFd> Listen(const HostPort& address, int backlog) {
  auto addr = Resolve(address.host, address.port, true);
  if (!addr.ok()) return Unexpected{addr.error()};
  UniqueFd fd(::socket(addr->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return MakeError(std::string("socket: ") + std::strerror(errno));
  int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (addr->ss_family == AF_INET6) {
    int zero = 0;
    setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
  }
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&*addr), AddrLen(*addr)) != 0) {
    return MakeError("bind " + Describe(address) + ": " + std::strerror(errno));
  }
  if (::listen(fd.get(), backlog) != 0) {
    return MakeError("listen " + Describe(address) + ": " + std::strerror(errno));
  }
  return fd;
}

sockaddr_storage PeerAddress(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  return ss;
}

sockaddr_storage LocalAddress(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  return ss;
}

Status WriteAll(int fd, std::string_view data, SteadyClock::time_point deadline,
                const StopToken& stop) {
  while (!data.empty()) {
    int n = PollUntil(fd, POLLOUT, deadline, stop);
    if (n == kStopped) return Interrupted();
    if (n == 0) return MakeError(ErrorCode::kTimeout, "timeout: control write");
    ssize_t w = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    // The peer reset or closed the connection mid-session.
    if (w < 0) {
      return MakeError(ErrorCode::kAborted,
                       std::string("closed: control write: ") + std::strerror(errno));
    }
    data.remove_prefix(static_cast<size_t>(w));
  }
  return OkStatus();
}

Result<Message> LineConn::Read(SteadyClock::time_point deadline) {
  for (;;) {
    if (auto nl = buf_.find('\n'); nl != std::string::npos) {
      std::string line = buf_.substr(0, nl);
      buf_.erase(0, nl + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return ParseMessage(line);
    }
    if (buf_.size() > kMaxLineBytes) return MakeError("control message over 64 KiB");
    int n = PollUntil(fd_.get(), POLLIN, deadline, stop_);
    if (n == kStopped) return Interrupted();
    if (n == 0)
      return MakeError(ErrorCode::kTimeout, "timeout: no complete control message in time");
    char tmp[1024];
    // One line at a time would be slow; reading ahead is safe because data
    // connections never share this reader with their payload.
    ssize_t r = ::recv(fd_.get(), tmp, sizeof(tmp), MSG_DONTWAIT);
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (r < 0)
      return MakeError(ErrorCode::kAborted, std::string("closed: ") + std::strerror(errno));
    if (r == 0) return MakeError(ErrorCode::kAborted, "closed: peer closed the control connection");
    buf_.append(tmp, static_cast<size_t>(r));
  }
}

Status LineConn::Write(const Message& m, SteadyClock::time_point deadline) {
  return WriteAll(fd_.get(), FormatMessage(m), deadline, stop_);
}

}  // namespace fabric::probe
