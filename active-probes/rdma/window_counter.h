// Bandwidth arithmetic for the RDMA probe, on CLOCK_MONOTONIC nanoseconds
// read by the completion-polling loop (never TSC ticks times a guessed clock
// rate). The window opens at the first poll at or after its nominal start and
// closes at the last poll at or before its nominal end; completions seen in
// (open, close] count, so a batch that accumulated before the window opened
// is not credited to it. Pure: the data path feeds it, tests feed it numbers.
#pragma once

#include <cstdint>
#include <vector>

#include "common/result.h"

namespace fabric::probe {

struct WindowTotals {
  double window_seconds = 0;
  uint64_t messages = 0;
  uint64_t bytes = 0;
  // Every completion polled, warm-up and the polls past the window's end
  // included: what the run put on the wire (its cost to the port counters).
  uint64_t all_bytes = 0;
  double bytes_per_second = 0;
  double messages_per_second = 0;
  std::vector<uint64_t> qp_messages;
  std::vector<double> qp_bytes_per_second;
  double qp_min_bytes_per_second = 0;
  double qp_max_bytes_per_second = 0;
};

class WindowCounter {
 public:
  WindowCounter(uint32_t qps, int64_t start_ns, int64_t end_ns);

  // One poll at t_ns (non-decreasing) that reaped `completions` on `qp`
  // (0 completions still moves the window edges).
  void Poll(int64_t t_ns, uint32_t qp, uint64_t completions);
  // True once a poll has been seen past the nominal end.
  bool done() const { return done_; }

  // Totals for messages of message_bytes each. Fails if no poll fell inside
  // the window (it was shorter than the polling gap, or the run stalled).
  Result<WindowTotals> Finish(uint64_t message_bytes) const;

 private:
  int64_t start_ns_;
  int64_t end_ns_;
  int64_t open_ns_ = -1;
  int64_t close_ns_ = -1;
  bool done_ = false;
  std::vector<uint64_t> counted_;
  uint64_t all_completions_ = 0;
};

}  // namespace fabric::probe
