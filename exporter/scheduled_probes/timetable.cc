#include "exporter/scheduled_probes/timetable.h"

#include <algorithm>

namespace fabric {
namespace {

SteadyTime Add(SteadyTime t, Seconds d) {
  return t + std::chrono::duration_cast<SteadyTime::duration>(d);
}

}  // namespace

Timetable::Timetable(std::vector<ProbeTiming> timings, SteadyTime start, Seconds max_splay,
                     uint64_t seed)
    : rng_(seed) {
  for (auto& timing : timings) {
    Seconds window = std::min(timing.interval, max_splay);
    std::uniform_real_distribution<double> splay(0, std::max(window.count(), 0.0));
    Entry entry{timing, {}, {}, 0};
    double first = timing.first_due_seconds ? *timing.first_due_seconds : splay(rng_);
    entry.due = entry.regular_due = Add(start, Seconds(first));
    entries_.push_back(entry);
  }
}

size_t Timetable::NextIndex() const {
  size_t best = 0;
  for (size_t i = 1; i < entries_.size(); ++i) {
    if (entries_[i].due < entries_[best].due) best = i;
  }
  return best;
}

Seconds Timetable::Jittered(Seconds base, double fraction) {
  std::uniform_real_distribution<double> factor(1 - fraction, 1 + fraction);
  return base * factor(rng_);
}

void Timetable::ScheduleNextRegular(Entry& entry, SteadyTime now) {
  SteadyTime next =
      Add(entry.regular_due, Jittered(entry.timing.interval, entry.timing.jitter_fraction));
  // A run that overran (or a clock jump) must not trigger a burst of catch-up
  // runs: the next one is at least a jittered interval from now.
  if (next <= now) next = Add(now, Jittered(entry.timing.interval, entry.timing.jitter_fraction));
  entry.regular_due = entry.due = next;
  entry.busy_attempts = 0;
}

void Timetable::Completed(size_t index, SteadyTime now) {
  ScheduleNextRegular(entries_[index], now);
}

bool Timetable::Busy(size_t index, SteadyTime now) {
  Entry& entry = entries_[index];
  if (entry.busy_attempts >= entry.timing.max_busy_retries) {
    ScheduleNextRegular(entry, now);
    return false;
  }
  Seconds backoff = entry.timing.busy_backoff_base * double(1 << entry.busy_attempts);
  backoff = std::min(Jittered(backoff, 0.5), entry.timing.interval / 4);
  ++entry.busy_attempts;
  entry.due = Add(now, backoff);
  return true;
}

}  // namespace fabric
