// A ProbeContext for tests, with what it refers to: the host's procfs and
// sysfs (or a fixture tree's), a stop source the test holds, and the system
// clock or a fake one the test moves.
#pragma once

#include <chrono>
#include <string>

#include "active-probes/probe/probe.h"
#include "common/clock.h"
#include "common/read/sysroot.h"
#include "common/stop_token.h"

namespace fabric::testing {

// A clock tests set by hand.
class FakeClock : public Clock {
 public:
  SteadyTime Now() override { return now_; }
  double WallSeconds() override { return wall_; }
  void Advance(std::chrono::duration<double> d) {
    now_ += std::chrono::duration_cast<SteadyTime::duration>(d);
    wall_ += d.count();
  }
  void SetWall(double seconds) { wall_ = seconds; }

 private:
  SteadyTime now_{std::chrono::hours(1000)};
  double wall_ = 1.7e9;
};

struct TestContext {
  explicit TestContext(SysRoot r = SysRoot()) : root(std::move(r)) {}
  probe::ProbeContext context() { return probe::ProbeContext{root, stop.token(), clock}; }

  SysRoot root;
  StopSource stop;
  SystemClock clock;
};

}  // namespace fabric::testing
