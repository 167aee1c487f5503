// Sockets for the probe's control and data connections: dialling with a
// deadline and errors that name the failure (refused, unreachable, timed out),
// listening, and a line-oriented control connection whose reads have a
// deadline for the whole message, so a peer trickling one byte at a time
// cannot hold the responder.
#pragma once

#include <sys/socket.h>

#include <chrono>
#include <string>
#include <string_view>

#include "active-probes/control/message.h"
#include "common/result.h"
#include "common/stop_token.h"
#include "common/unique_fd.h"

namespace fabric::probe {

using SteadyClock = std::chrono::steady_clock;

struct HostPort {
  std::string host;
  uint16_t port = 0;
};

// "host", "host:port", "[v6]:port", "v6" (no port). The port defaults to
// default_port.
Result<HostPort> ParseHostPort(std::string_view text, uint16_t default_port);

// Connects a TCP socket. bind_address (optional) selects the source address.
// rcvbuf/sndbuf (0 = kernel autotuning) are set before connect so the window
// scale matches. nodelay suits the control connection; bulk data streams
// leave Nagle on so a send that is not a whole number of segments does not
// push a runt segment each call. Errors carry ErrorCode::kRefused,
// kUnreachable or kTimeout, or kInterrupted once `stop` is requested.
Result<UniqueFd> Dial(const HostPort& peer, const std::string& bind_address,
                      std::chrono::milliseconds timeout, int rcvbuf = 0, int sndbuf = 0,
                      bool nodelay = true, const StopToken& stop = {});

// A listening socket on address:port (SO_REUSEADDR; IPV6_V6ONLY off for "::").
Result<UniqueFd> Listen(const HostPort& address, int backlog = 128);

// The address Dial connects `host` to (the resolver's first answer), as numeric text: "10.0.0.2",
// "fd00::2". Errors carry ErrorCode::kUnreachable.
Result<std::string> ResolveAddressText(const std::string& host);

// The local and peer addresses of a connected socket.
sockaddr_storage PeerAddress(int fd);
sockaddr_storage LocalAddress(int fd);

// Writes all of data, with a deadline; EPIPE and the like are errors.
Status WriteAll(int fd, std::string_view data, SteadyClock::time_point deadline,
                const StopToken& stop = {});

class LineConn {
 public:
  LineConn() = default;
  explicit LineConn(UniqueFd fd) : fd_(std::move(fd)) {}

  int fd() const { return fd_.get(); }
  UniqueFd& handle() { return fd_; }
  // Reads and writes fail with kInterrupted soon after `stop` is requested (a
  // shutdown must not wait out a silent peer's whole deadline).
  void set_stop(const StopToken& stop) { stop_ = stop; }

  // Reads one message; fails with kTimeout at the deadline, kAborted on EOF
  // or a reset (the peer went away).
  Result<Message> Read(SteadyClock::time_point deadline);
  Status Write(const Message& m, SteadyClock::time_point deadline);
  // Bytes already buffered beyond the last message (a data connection's
  // header reader hands these to the stream).
  size_t buffered() const { return buf_.size(); }

 private:
  UniqueFd fd_;
  std::string buf_;
  StopToken stop_;
};

}  // namespace fabric::probe
