#include "exporter/path_mesh/connect_rtt.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "common/unique_fd.h"

namespace fabric {
namespace {

using SteadyClock = std::chrono::steady_clock;

// A numeric address as a sockaddr; false when it is neither IPv4 nor IPv6.
bool ToSockaddr(const std::string& address, uint16_t port, sockaddr_storage* out, socklen_t* len) {
  std::memset(out, 0, sizeof(*out));
  auto* v4 = reinterpret_cast<sockaddr_in*>(out);
  if (inet_pton(AF_INET, address.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    *len = sizeof(sockaddr_in);
    return true;
  }
  auto* v6 = reinterpret_cast<sockaddr_in6*>(out);
  if (inet_pton(AF_INET6, address.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    *len = sizeof(sockaddr_in6);
    return true;
  }
  return false;
}

// The outcome of a finished connect from its error (0, or SO_ERROR).
void Finish(ConnectResult& r, int error, SteadyClock::duration elapsed) {
  if (error == 0 || error == ECONNREFUSED) {
    r.kind = ConnectResult::Kind::kAnswered;
    r.refused = error == ECONNREFUSED;
    r.rtt_seconds = std::chrono::duration<double>(elapsed).count();
  } else {
    r.kind = ConnectResult::Kind::kLost;
    r.error = error;
  }
}

struct InFlight {
  size_t index;
  UniqueFd fd;
  SteadyClock::time_point start;
};

}  // namespace

std::vector<ConnectResult> TimeConnects(const std::vector<ConnectTarget>& targets,
                                        const std::string& bind_address,
                                        std::chrono::microseconds timeout, const StopToken& stop) {
  std::vector<ConnectResult> results(targets.size());
  std::vector<InFlight> flying;
  sockaddr_storage source{};
  socklen_t source_len = 0;
  const bool bind_source =
      !bind_address.empty() && ToSockaddr(bind_address, 0, &source, &source_len);
  for (size_t i = 0; i < targets.size(); ++i) {
    ConnectResult& r = results[i];
    sockaddr_storage dest{};
    socklen_t dest_len = 0;
    if (!ToSockaddr(targets[i].address, targets[i].port, &dest, &dest_len)) {
      r.kind = ConnectResult::Kind::kLocalError;
      r.error = EINVAL;
      continue;
    }
    UniqueFd fd(::socket(dest.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!fd.valid()) {
      r.kind = ConnectResult::Kind::kLocalError;
      r.error = errno;
      continue;
    }
    // Closed with a reset: no FIN exchange and no TIME_WAIT socket per probe.
    linger reset{1, 0};
    (void)::setsockopt(fd.get(), SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
    if (bind_source && source.ss_family == dest.ss_family &&
        ::bind(fd.get(), reinterpret_cast<sockaddr*>(&source), source_len) != 0) {
      r.kind = ConnectResult::Kind::kLocalError;
      r.error = errno;
      continue;
    }
    const auto start = SteadyClock::now();
    if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&dest), dest_len) == 0) {
      Finish(r, 0, SteadyClock::now() - start);
      continue;
    }
    if (errno != EINPROGRESS) {
      // Refused at once (loopback) is an answer; no route or a local
      // unreachable is a path that does not carry.
      if (errno == EADDRNOTAVAIL || errno == EMFILE || errno == ENFILE || errno == ENOBUFS) {
        r.kind = ConnectResult::Kind::kLocalError;
        r.error = errno;
      } else {
        Finish(r, errno, SteadyClock::now() - start);
      }
      continue;
    }
    flying.push_back({i, std::move(fd), start});
  }
  while (!flying.empty()) {
    if (stop.stop_requested()) return results;  // the rest stay kStopped
    const auto now = SteadyClock::now();
    auto next_deadline = SteadyClock::time_point::max();
    std::vector<InFlight> still;
    for (auto& f : flying) {
      if (now - f.start >= timeout) {
        results[f.index].kind = ConnectResult::Kind::kLost;  // error 0: timeout
        continue;
      }
      next_deadline = std::min(next_deadline, f.start + timeout);
      still.push_back(std::move(f));
    }
    flying = std::move(still);
    if (flying.empty()) break;
    std::vector<pollfd> fds;
    for (const auto& f : flying) fds.push_back({f.fd.get(), POLLOUT, 0});
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(next_deadline - now) +
                std::chrono::milliseconds(1);
    int n = ::poll(fds.data(), fds.size(), static_cast<int>(stop.Slice(left).count()));
    if (n < 0 && errno != EINTR) {
      for (auto& f : flying) {
        results[f.index].kind = ConnectResult::Kind::kLocalError;
        results[f.index].error = errno;
      }
      return results;
    }
    if (n <= 0) continue;
    const auto woke = SteadyClock::now();
    still.clear();
    for (size_t k = 0; k < flying.size(); ++k) {
      if (fds[k].revents == 0) {
        still.push_back(std::move(flying[k]));
        continue;
      }
      int error = 0;
      socklen_t len = sizeof(error);
      if (::getsockopt(flying[k].fd.get(), SOL_SOCKET, SO_ERROR, &error, &len) != 0) error = errno;
      Finish(results[flying[k].index], error, woke - flying[k].start);
    }
    flying = std::move(still);
  }
  return results;
}

}  // namespace fabric
