// Timetable: when each scheduled probe runs next. Pure logic over an
// injected time, so tests drive it with a fake clock.
//
//  - start splay: the first run of each probe is spread uniformly over
//    [0, min(interval, max_splay)) so a fleet restarted together does not
//    probe in lockstep;
//  - jitter: each later run is due interval x (1 +- jitter_fraction) after
//    the previous *due* time (not the finish time), so runs do not drift;
//  - BUSY answers back off exponentially (base x 2^attempt, +-50% jitter,
//    capped at a quarter interval) and give up after max_busy_retries until
//    the next regular run.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/clock.h"

namespace fabric {

using Seconds = std::chrono::duration<double>;

struct ProbeTiming {
  Seconds interval{600};
  double jitter_fraction = 0.1;
  Seconds busy_backoff_base{2};
  int max_busy_retries = 5;
  // When set, the first run is due this many seconds after start instead of
  // at a random splay (runs aligned to wall-clock plan rounds).
  std::optional<double> first_due_seconds;
};

class Timetable {
 public:
  Timetable(std::vector<ProbeTiming> timings, SteadyTime start, Seconds max_splay, uint64_t seed);

  size_t size() const { return entries_.size(); }
  // The index of the probe due first (ties: lowest index) and its due time.
  size_t NextIndex() const;
  SteadyTime DueTime(size_t index) const { return entries_[index].due; }

  // After a run that was not BUSY (success, failure or skip).
  void Completed(size_t index, SteadyTime now);
  // After a BUSY answer. Returns false when the retries are used up (the
  // probe then waits for its next regular run).
  bool Busy(size_t index, SteadyTime now);

 private:
  struct Entry {
    ProbeTiming timing;
    SteadyTime due;
    SteadyTime regular_due;  // Due time of the current regular run.
    int busy_attempts = 0;
  };
  Seconds Jittered(Seconds base, double fraction);
  void ScheduleNextRegular(Entry& entry, SteadyTime now);

  std::vector<Entry> entries_;
  std::mt19937_64 rng_;
};

}  // namespace fabric
