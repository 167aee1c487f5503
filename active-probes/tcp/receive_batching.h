// Receive wake-up batching for the probe's receiving streams (SO_RCVLOWAT).
//
// A blocking recv() on a TCP socket is woken for every batch of segments the
// softirq queues: on one loopback or veth stream about one wake-up per 60 KiB,
// each a context switch on the receiver and a cross-CPU wake-up (an IPI; on a
// virtual machine a VM exit) paid by the CPU that runs the sender's transmit
// and softirq path. Raising the socket's receive low-water mark lets the
// kernel queue more before it wakes the reader (tcp_data_ready), so each
// wake-up and each recv() moves a full receive block: one loopback stream
// moved twice as much with it at half the CPU per byte.
//
// A reader that already finds full blocks queued (many streams sharing busy
// CPUs) gains nothing from the mark, and 32 sendfile streams on loopback lost
// a third of their throughput with it (docs/performance.md). So the mark is
// only set while reads come back short:
//
// - Sampling: for one kSample interval the mark is the kernel's default (1);
//   if fewer than half the reads of that interval filled the block (a reader
//   woken for each arrival gets part of a block, one that is behind gets full
//   ones), the mark is set for the next kRecheck, then the stream samples
//   again.
//
// Two bounds keep the measurement honest:
// - Latency: while the mark is set the socket has a receive timeout of
//   kMaxHold, so a recv() that has some data but not the mark returns what it
//   has once that passes (the kernel rounds it up to one scheduler tick, 1-10
//   ms by CONFIG_HZ). A window edge therefore misses at most about one tick of
//   a stream's data, whatever its rate, and a slow or stalled stream is never
//   held up for the mark.
// - The receive buffer: Linux grows a socket's receive buffer (and sets its
//   window clamp) to fit a low-water mark that does not fit it
//   (tcp_set_rcvlowat), which would make the probe's connection differ from
//   an application's. The mark stays at a quarter of the buffer the kernel
//   has autotuned so far and follows it up as autotuning grows it.
//
// The kernel still wakes the reader below the mark under memory pressure, on
// FIN, and when the receive window is nearly closed (tcp_epollin_ready), so
// the mark cannot stall a stream.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace fabric::probe {

class ReceiveBatching {
 public:
  // Receive timeout: the longest a recv() with data waits for the mark.
  static constexpr std::chrono::microseconds kMaxHold{1000};
  // One measurement interval, and how often a set mark follows the buffer.
  static constexpr std::chrono::milliseconds kSample{10};
  // How long a decision stands before the stream samples again.
  static constexpr std::chrono::milliseconds kRecheck{250};

  // The low-water mark for recv_block-sized reads on a socket whose receive
  // buffer (SO_RCVBUF, as the kernel reports it) is rcvbuf_bytes: the block,
  // at most a quarter of the buffer, at least 1. Pure.
  static int LowWaterMark(size_t recv_block, int rcvbuf_bytes);
  // Whether the reads of an interval without the mark came back short enough
  // for batching to pay: fewer than half of them filled the block. Pure.
  static bool ReadsComeBackShort(uint64_t calls, uint64_t full_calls);

  // fd: a connected, blocking TCP socket that this thread alone reads,
  // recv_block bytes per call. While a mark is set the socket has a receive
  // timeout, so recv() on it can fail with EAGAIN when nothing arrived for
  // kMaxHold; the reader retries. `now` (here and in Count) is the monotonic
  // clock's time, a parameter so that tests can give it.
  ReceiveBatching(int fd, size_t recv_block,
                  std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now());

  // After every recv() that returned n > 0 bytes.
  void Count(size_t n,
             std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now()) {
    ++calls_;
    if (n >= recv_block_) ++full_calls_;
    if (now - interval_start_ >= kSample) EndInterval(now);
  }

  // The mark now set on the socket (1: the kernel's default).
  int mark() const { return mark_; }

 private:
  void EndInterval(std::chrono::steady_clock::time_point now);
  void SetMark(int mark);
  int CurrentLowWaterMark() const;

  int fd_;
  size_t recv_block_;
  bool sampling_ = true;  // this interval runs without the mark
  int mark_ = 1;
  uint64_t calls_ = 0;
  uint64_t full_calls_ = 0;
  std::chrono::steady_clock::time_point interval_start_;
  std::chrono::steady_clock::time_point decided_at_;
};

}  // namespace fabric::probe
