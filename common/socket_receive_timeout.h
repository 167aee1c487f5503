// SO_RCVTIMEO from a std::chrono duration, for the sockets that bound their
// blocking reads (netlink dumps, the TCP probe's batched receivers).
#pragma once

#include <sys/socket.h>
#include <sys/time.h>

#include <chrono>

namespace fabric {

// Zero clears the timeout (reads block until data or an error). Returns
// whether the kernel took it.
inline bool SetSocketReceiveTimeout(int fd, std::chrono::microseconds timeout) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000000);
  tv.tv_usec = static_cast<suseconds_t>(timeout.count() % 1000000);
  return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0;
}

}  // namespace fabric
