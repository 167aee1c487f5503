// A stop request shared with long-running work (a signal, the exporter's
// shutdown cancelling a scheduled probe). The owner holds a StopSource and
// hands out StopTokens; a default StopToken is never stopped. Blocking waits
// are cut into slices of kStopSlice so the work notices a request that soon.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

namespace fabric {

inline constexpr std::chrono::milliseconds kStopSlice{50};

class StopToken;

class StopSource {
 public:
  StopSource() = default;
  StopSource(const StopSource&) = delete;
  StopSource& operator=(const StopSource&) = delete;

  // A lock-free atomic store, so a signal handler may call it.
  void RequestStop() { flag_.store(true, std::memory_order_relaxed); }
  bool stop_requested() const { return flag_.load(std::memory_order_relaxed); }
  // Valid while this source lives.
  StopToken token() const;

 private:
  static_assert(std::atomic<bool>::is_always_lock_free);
  std::atomic<bool> flag_{false};
};

class StopToken {
 public:
  StopToken() = default;  // Never stopped.

  bool stop_possible() const { return flag_ != nullptr; }
  bool stop_requested() const { return flag_ != nullptr && flag_->load(std::memory_order_relaxed); }

  // How long a blocking wait with `left` to go may sleep before it looks at
  // the request again: all of it when nothing can stop the work.
  template <typename Duration>
  Duration Slice(Duration left) const {
    return stop_possible() ? std::min<Duration>(left, kStopSlice) : left;
  }

  // Sleeps for `duration` unless a stop is requested first; false if it was.
  bool SleepFor(std::chrono::steady_clock::duration duration) const {
    const auto end = std::chrono::steady_clock::now() + duration;
    for (;;) {
      if (stop_requested()) return false;
      const auto now = std::chrono::steady_clock::now();
      if (now >= end) return true;
      std::this_thread::sleep_for(Slice<std::chrono::steady_clock::duration>(end - now));
    }
  }

 private:
  friend class StopSource;
  explicit StopToken(const std::atomic<bool>* flag) : flag_(flag) {}
  const std::atomic<bool>* flag_ = nullptr;
};

inline StopToken StopSource::token() const { return StopToken(&flag_); }

}  // namespace fabric
