#include "active-probes/tcp/receive_batching.h"

#include <sys/socket.h>

#include <algorithm>

#include "common/socket_receive_timeout.h"

namespace fabric::probe {

int ReceiveBatching::LowWaterMark(size_t recv_block, int rcvbuf_bytes) {
  const size_t quarter = rcvbuf_bytes > 0 ? static_cast<size_t>(rcvbuf_bytes) / 4 : 0;
  return static_cast<int>(std::max<size_t>(1, std::min(recv_block, quarter)));
}

bool ReceiveBatching::ReadsComeBackShort(uint64_t calls, uint64_t full_calls) {
  return full_calls * 2 < calls;
}

ReceiveBatching::ReceiveBatching(int fd, size_t recv_block,
                                 std::chrono::steady_clock::time_point now)
    : fd_(fd), recv_block_(recv_block), interval_start_(now) {}

void ReceiveBatching::EndInterval(std::chrono::steady_clock::time_point now) {
  if (sampling_) {
    sampling_ = false;
    decided_at_ = now;
    if (ReadsComeBackShort(calls_, full_calls_)) SetMark(CurrentLowWaterMark());
  } else if (now - decided_at_ >= kRecheck) {
    sampling_ = true;
    SetMark(1);
  } else if (mark_ > 1) {
    SetMark(CurrentLowWaterMark());  // the buffer only grows; the mark follows it
  }
  calls_ = 0;
  full_calls_ = 0;
  interval_start_ = now;
}

int ReceiveBatching::CurrentLowWaterMark() const {
  int rcvbuf = 0;
  socklen_t len = sizeof(rcvbuf);
  if (getsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &len) != 0) return 1;
  return LowWaterMark(recv_block_, rcvbuf);
}

void ReceiveBatching::SetMark(int mark) {
  if (mark == mark_) return;
  // The timeout goes on before a mark and comes off after it, so no mark is
  // ever set without its latency bound. Without a mark the socket is as the
  // kernel made it: a plain blocking reader.
  if (mark > 1 && mark_ == 1 && !SetSocketReceiveTimeout(fd_, kMaxHold)) return;
  // A failed call leaves the previous mark, which was within both bounds.
  if (setsockopt(fd_, SOL_SOCKET, SO_RCVLOWAT, &mark, sizeof(mark)) != 0) return;
  mark_ = mark;
  if (mark_ == 1) SetSocketReceiveTimeout(fd_, std::chrono::microseconds{0});
}

}  // namespace fabric::probe
