#include "active-probes/tcp/unsent_limit.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace fabric::probe {

uint32_t AutoUnsentLimit(uint32_t sending_streams, uint32_t send_block) {
  if (send_block < kFullPacketBytes) return 0;
  return std::max(kMinUnsentLimitBytes, kUnsentBudgetBytes / std::max(sending_streams, 1u));
}

bool UnsentLimitAllowed(uint64_t bytes) {
  return bytes == 0 || (bytes >= kSmallestUnsentLimitBytes && bytes <= kLargestUnsentLimitBytes);
}

Status SetUnsentLimit(int fd, uint32_t bytes) {
  if (bytes == 0) return OkStatus();
  // The option takes an int.
  int value = static_cast<int>(std::min(bytes, kLargestUnsentLimitBytes));
  if (setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &value, sizeof(value)) != 0) {
    return MakeError(std::string("TCP_NOTSENT_LOWAT: ") + std::strerror(errno));
  }
  return OkStatus();
}

Result<uint32_t> GetUnsentLimit(int fd) {
  int value = 0;
  socklen_t len = sizeof(value);
  if (getsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &value, &len) != 0) {
    return MakeError(std::string("TCP_NOTSENT_LOWAT: ") + std::strerror(errno));
  }
  return static_cast<uint32_t>(value);
}

}  // namespace fabric::probe
