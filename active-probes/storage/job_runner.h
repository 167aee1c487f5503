// One job's I/O loop and the helpers around it: keep the engine's queue full
// for a time window on CLOCK_MONOTONIC, counting only completions inside the
// window (warm-up excluded), then drain.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "active-probes/storage/io_engine.h"
#include "active-probes/storage/latency_histogram.h"
#include "common/result.h"
#include "common/stop_token.h"

namespace fabric::storage {

int64_t MonotonicNanos();
void SleepUntil(int64_t monotonic_nanos);
double ThreadCpuSeconds();
double ProcessCpuSeconds();

// splitmix64 output: incompressible and cheap (about 1 ns per 8 bytes).
void FillRandom(uint8_t* data, size_t bytes, uint64_t& state);

struct JobSpec {
  IoKind kind = IoKind::kRead;
  bool random = false;
  int fd = -1;
  std::string file_name;  // For errors.
  uint64_t region_start = 0;
  uint64_t region_end = 0;  // Exclusive; a whole number of blocks from start.
  uint32_t block_size = 0;
  uint64_t seed = 1;
  int64_t window_start_ns = 0;
  int64_t window_end_ns = 0;
  // Buffered reads: evict each block from the page cache once read, with at
  // most a quarter of the region in flight, so every pass reads the device.
  bool drop_behind = false;
  // Buffered writes: write each block at most once, so the closing
  // fdatasync makes every counted byte durable (rewrites of a cached page
  // would be counted but reach the disk once).
  bool single_pass = false;
  StopToken stop;                      // The caller's abort request.
  std::atomic<bool>* abort = nullptr;  // Set by a failing job to stop the others.
};

struct JobStats {
  uint64_t bytes = 0;
  uint64_t ios = 0;
  LatencyHistogram latency;
  double cpu_seconds = 0;  // This thread, from the window start to its end.
  bool interrupted = false;
};

// Runs until window_end_ns (or stop/abort), then waits for what is in flight.
// I/Os completing before window_start_ns are warm-up and not counted.
Status RunJob(IoEngine& engine, const JobSpec& spec, JobStats& stats);

// Writes [0, size) once with fresh random data per block, so a read probe
// never reads a hole, zeroes, or data a compressing or deduplicating
// filesystem could shortcut.
Status FillFile(IoEngine& engine, int fd, uint64_t size, uint32_t block_size,
                const std::string& file_name, const StopToken& stop);

}  // namespace fabric::storage
