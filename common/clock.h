// Clock: the two times probes and the scheduler read, behind one interface so
// tests substitute a fake: the wall clock (record timestamps, plan rounds
// every node agrees on) and the monotonic clock (durations and deadlines).
#pragma once

#include <chrono>

namespace fabric {

using SteadyTime = std::chrono::steady_clock::time_point;

class Clock {
 public:
  virtual ~Clock() = default;
  // Monotonic time.
  virtual SteadyTime Now() = 0;
  // Unix time in seconds.
  virtual double WallSeconds() = 0;
};

// The system's clocks.
class SystemClock : public Clock {
 public:
  SteadyTime Now() override { return std::chrono::steady_clock::now(); }
  double WallSeconds() override {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace fabric
