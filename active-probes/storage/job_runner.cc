#include "active-probes/storage/job_runner.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstring>
#include <vector>

#include "active-probes/storage/errno_code.h"

namespace fabric::storage {
namespace {

constexpr int64_t kReapTimeoutNs = 100'000'000;  // Re-checks stop flags this often.
constexpr size_t kReapBatch = 64;

uint64_t SplitMix(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double ToSeconds(const timeval& tv) { return static_cast<double>(tv.tv_sec) + tv.tv_usec / 1e6; }

double CpuOf(int who) {
  rusage ru{};
  if (::getrusage(who, &ru) != 0) return 0;
  return ToSeconds(ru.ru_utime) + ToSeconds(ru.ru_stime);
}

// The I/O's result as an error code: a write that failed with ENOSPC filled the
// filesystem.
ErrorCode CodeOfResult(int64_t res) {
  return res < 0 ? CodeOfErrno(static_cast<int>(-res)) : ErrorCode::kOther;
}

bool Requested(const std::atomic<bool>* flag) {
  return flag != nullptr && flag->load(std::memory_order_relaxed);
}

std::string DescribeIoError(IoKind kind, const std::string& file, uint64_t offset, int64_t res,
                            uint32_t length) {
  std::string op = kind == IoKind::kRead ? "read" : "write";
  std::string where = " of " + std::to_string(length) + " bytes at offset " +
                      std::to_string(offset) + " of " + file;
  if (res < 0) return op + where + ": " + std::strerror(static_cast<int>(-res));
  return "short " + op + where + ": " + std::to_string(res) + " bytes";
}

// Overwrites the first 16 bytes of every 4 KiB with (offset, sequence), so
// no two written sectors are identical (dedup) while costing a few stores.
void StampBlock(uint8_t* data, uint32_t length, uint64_t offset, uint64_t sequence) {
  for (uint32_t at = 0; at + 16 <= length; at += 4096) {
    uint64_t stamp[2] = {offset + at, sequence};
    std::memcpy(data + at, stamp, sizeof(stamp));
  }
}

}  // namespace

int64_t MonotonicNanos() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void SleepUntil(int64_t monotonic_nanos) {
  timespec ts{static_cast<time_t>(monotonic_nanos / 1'000'000'000),
              static_cast<long>(monotonic_nanos % 1'000'000'000)};
  while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

double ThreadCpuSeconds() { return CpuOf(RUSAGE_THREAD); }
double ProcessCpuSeconds() { return CpuOf(RUSAGE_SELF); }

void FillRandom(uint8_t* data, size_t bytes, uint64_t& state) {
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t v = SplitMix(state);
    std::memcpy(data + i, &v, 8);
  }
  for (; i < bytes; ++i) data[i] = static_cast<uint8_t>(SplitMix(state));
}

Status RunJob(IoEngine& engine, const JobSpec& spec, JobStats& stats) {
  const uint64_t blocks = (spec.region_end - spec.region_start) / spec.block_size;
  if (blocks == 0) return MakeError("job region smaller than one block");
  uint32_t depth = engine.depth();
  if (spec.drop_behind) {
    // Buffered reads: keep at most a quarter of the region in flight, so a
    // block is never requested again while its previous read is still
    // cached or under I/O (a deep queue on a small file would otherwise be
    // served from the page cache).
    depth = static_cast<uint32_t>(std::clamp<uint64_t>(blocks / 4, 1, depth));
    // Readahead would pull the next blocks into the cache behind the
    // probe's back; 1 MiB requests need none.
    (void)::posix_fadvise(spec.fd, static_cast<off_t>(spec.region_start),
                          static_cast<off_t>(spec.region_end - spec.region_start),
                          POSIX_FADV_RANDOM);
  }
  uint64_t rng = spec.seed;
  uint64_t next_block = 0;
  uint64_t sequence = 0;
  if (spec.kind == IoKind::kWrite) {
    for (uint32_t s = 0; s < depth; ++s) FillRandom(engine.buffer(s), spec.block_size, rng);
  }
  struct Slot {
    uint64_t offset = 0;
    int64_t submitted_ns = 0;
  };
  std::vector<Slot> slots(depth);

  uint64_t issued = 0;
  auto exhausted = [&] { return spec.single_pass && issued >= blocks; };
  auto issue = [&](uint32_t slot, int64_t now) -> Status {
    ++issued;
    uint64_t block;
    if (spec.single_pass && spec.random) {
      // A permutation of the region (an odd stride modulo a power of two is
      // a bijection; blocks outside the region are skipped).
      uint64_t span = std::bit_ceil(blocks);
      do {
        next_block = (next_block + (spec.seed | 1)) & (span - 1);
      } while (next_block >= blocks);
      block = next_block;
    } else if (spec.random) {
      block = SplitMix(rng) % blocks;
    } else {
      block = next_block;
      next_block = next_block + 1 == blocks ? 0 : next_block + 1;
    }
    uint64_t offset = spec.region_start + block * spec.block_size;
    if (spec.kind == IoKind::kWrite) {
      StampBlock(engine.buffer(slot), spec.block_size, offset, ++sequence);
    }
    slots[slot] = {offset, now};
    return engine.Queue(slot, spec.kind, spec.fd, offset, spec.block_size);
  };
  auto stopping = [&](int64_t now) {
    return now >= spec.window_end_ns || spec.stop.stop_requested() || Requested(spec.abort);
  };

  Status failure = OkStatus();
  bool cpu_started = false;
  double cpu_at_start = 0;
  uint32_t in_flight = 0;
  int64_t now = MonotonicNanos();
  for (uint32_t s = 0; s < depth && !exhausted(); ++s) {
    failure = issue(s, now);
    if (!failure.ok()) break;
    ++in_flight;
  }
  if (failure.ok()) failure = engine.Submit();
  if (!failure.ok()) in_flight = 0;  // Nothing reached the kernel.

  std::array<IoCompletion, kReapBatch> done;
  while (in_flight > 0) {
    auto reaped = engine.Reap(done, kReapTimeoutNs);
    if (!reaped.ok()) {
      failure = MakeError(reaped.error());
      break;  // The ring is unusable; its destructor waits for the kernel.
    }
    now = MonotonicNanos();
    if (!cpu_started && now >= spec.window_start_ns) {
      cpu_started = true;
      cpu_at_start = ThreadCpuSeconds();
    }
    bool stop_now = stopping(now);
    for (size_t i = 0; i < *reaped; ++i) {
      const IoCompletion& c = done[i];
      --in_flight;
      const Slot& slot = slots[c.slot];
      if (c.result != static_cast<int64_t>(spec.block_size)) {
        if (failure.ok()) {
          failure = MakeError(
              CodeOfResult(c.result),
              DescribeIoError(spec.kind, spec.file_name, slot.offset, c.result, spec.block_size));
        }
        if (spec.abort != nullptr) spec.abort->store(true);
        stop_now = true;
        continue;
      }
      if (spec.drop_behind) {
        // Evict each block as soon as it has been read, so the next pass
        // reads it from the device again.
        (void)::posix_fadvise(spec.fd, static_cast<off_t>(slot.offset),
                              static_cast<off_t>(spec.block_size), POSIX_FADV_DONTNEED);
      }
      if (now >= spec.window_start_ns) {
        stats.bytes += spec.block_size;
        ++stats.ios;
        stats.latency.Record(static_cast<uint64_t>(now - slot.submitted_ns));
      }
      if (!stop_now && failure.ok() && !exhausted()) {
        Status queued = issue(c.slot, now);
        if (!queued.ok()) {
          failure = queued;
          stop_now = true;
          continue;
        }
        ++in_flight;
      }
    }
    Status submitted = engine.Submit();
    if (!submitted.ok()) {
      if (failure.ok()) failure = submitted;
      break;  // Queued I/Os never reached the kernel: do not wait for them.
    }
  }
  stats.cpu_seconds = cpu_started ? ThreadCpuSeconds() - cpu_at_start : 0;
  stats.interrupted = spec.stop.stop_requested();
  if (!failure.ok() && spec.abort != nullptr) spec.abort->store(true);
  return failure;
}

Status FillFile(IoEngine& engine, int fd, uint64_t size, uint32_t block_size,
                const std::string& file_name, const StopToken& stop) {
  const uint32_t depth = engine.depth();
  uint64_t rng = 0x5EED0000ull ^ size;
  uint64_t next = 0;
  uint32_t in_flight = 0;
  std::vector<uint64_t> offsets(depth);
  Status failure = OkStatus();
  auto issue = [&](uint32_t slot) -> Status {
    FillRandom(engine.buffer(slot), block_size, rng);
    offsets[slot] = next;
    Status s = engine.Queue(slot, IoKind::kWrite, fd, next, block_size);
    next += block_size;
    return s;
  };
  for (uint32_t s = 0; s < depth && next + block_size <= size && failure.ok(); ++s) {
    failure = issue(s);
    if (failure.ok()) ++in_flight;
  }
  if (failure.ok()) failure = engine.Submit();
  if (!failure.ok()) return failure;
  std::array<IoCompletion, kReapBatch> done;
  while (in_flight > 0) {
    auto reaped = engine.Reap(done, kReapTimeoutNs);
    if (!reaped.ok()) return MakeError(reaped.error());
    bool stop_now = stop.stop_requested() || !failure.ok();
    for (size_t i = 0; i < *reaped; ++i) {
      --in_flight;
      const IoCompletion& c = done[i];
      if (c.result != static_cast<int64_t>(block_size)) {
        if (failure.ok()) {
          failure = MakeError(
              CodeOfResult(c.result),
              "preparing the read file: " + DescribeIoError(IoKind::kWrite, file_name,
                                                            offsets[c.slot], c.result, block_size));
        }
        stop_now = true;
        continue;
      }
      if (!stop_now && next + block_size <= size) {
        Status s = issue(c.slot);
        if (!s.ok()) {
          failure = s;
          continue;
        }
        ++in_flight;
      }
    }
    Status submitted = engine.Submit();
    if (!submitted.ok()) return submitted;
  }
  if (!failure.ok()) return failure;
  if (stop.stop_requested()) {
    return MakeError(ErrorCode::kInterrupted, "interrupted while preparing the read file");
  }
  return OkStatus();
}

}  // namespace fabric::storage
