// A stop request shared with long-running work (the exporter's shutdown
// cancelling a scheduled probe): a pointer to a flag its owner sets, nullptr
// for work that is never stopped. Blocking waits are cut into slices of
// kStopSlice so the work notices the request that soon.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

namespace fabric {

inline constexpr std::chrono::milliseconds kStopSlice{50};

inline bool StopRequested(const std::atomic<bool>* stop) {
  return stop != nullptr && stop->load(std::memory_order_relaxed);
}

// Sleeps for `duration` unless a stop is requested first; false if it was.
inline bool SleepUnlessStopped(std::chrono::steady_clock::duration duration,
                               const std::atomic<bool>* stop) {
  const auto end = std::chrono::steady_clock::now() + duration;
  if (stop == nullptr) {
    std::this_thread::sleep_until(end);
    return true;
  }
  for (;;) {
    if (StopRequested(stop)) return false;
    const auto now = std::chrono::steady_clock::now();
    if (now >= end) return true;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(end - now, kStopSlice));
  }
}

}  // namespace fabric
