// The storage probe: direct-I/O read and write throughput of one directory's
// filesystem, measured with io_uring the way fio measures it, plus the
// self-evidence (latency, CPU, filesystem, fallbacks) that tells a disk limit
// from a harness limit. fabric_probe's `storage` command and the exporter's
// probe scheduler both call RunStorageProbe().
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "active-probes/probe/probe.h"
#include "common/result.h"

namespace fabric::storage {

enum class Mode { kRead, kWrite, kRandRead, kRandWrite };
enum class EngineChoice { kAuto, kIoUring, kPsync };

std::string_view ModeName(Mode mode);
Result<Mode> ParseMode(std::string_view s);
bool IsWrite(Mode mode);
bool IsRandom(Mode mode);

struct StorageProbeOptions {
  // Directory the probe works in; it creates, and removes, only its own files
  // there (fabric_probe_storage.N), refusing names that already exist.
  std::string directory;
  // Read an existing regular file in `directory` instead of creating one (read
  // modes only; it is checked for holes and never removed).
  std::string existing_file;
  // A block device to read (read modes only). Never implied by `directory`.
  std::string device;

  Mode mode = Mode::kRead;
  uint32_t block_size = 0;  // 0: 1 MiB for sequential modes, 4 KiB for random.
  uint32_t queue_depth = 32;
  uint32_t jobs = 1;
  // 0: jobs share one file, each at its own offset range (the read-offset
  // contention shape); N > 0: jobs are spread over N separate files.
  uint32_t files = 0;
  // Bytes per file; 0: 256 MiB for files the probe creates, the whole existing
  // file or device otherwise.
  uint64_t size = 0;
  double warmup_seconds = 0.5;
  double duration_seconds = 3.0;
  bool direct = true;  // false: the `buffered` mode (page cache).
  EngineChoice engine = EngineChoice::kAuto;
  // Refuse to write when the filesystem would be left with less than this.
  uint64_t reserve_bytes = 1ull << 30;
  // Measure the depth-1 latency first, for the latency_bound verdict.
  bool calibrate = true;
};

struct LatencySummary {
  double p50 = 0, p99 = 0, p999 = 0, mean = 0, max = 0;  // Seconds.
  uint64_t count = 0;
};

struct FilesystemInfo {
  std::string type;  // e.g. "ext4"; empty when mountinfo had no match.
  std::string source;
  std::string mount_point;
  std::string options;  // Per-mount and superblock options, comma-joined.
};

struct StorageProbeResult {
  Mode mode = Mode::kRead;
  std::string target;       // Directory, existing file or device probed.
  std::string engine;       // "io_uring" or "psync".
  std::string engine_note;  // Why the engine fell back; empty when it did not.
  // io_uring's completion delivery (defer_taskrun, coop_taskrun or plain; see RingSetup).
  std::string ring_setup;
  bool direct = true;       // O_DIRECT was in effect.
  std::string direct_note;  // Why O_DIRECT fell back; empty when it did not.
  bool registered_buffers = false;
  uint32_t block_size = 0;
  uint32_t queue_depth = 0;  // Effective (psync is always 1).
  uint32_t jobs = 0;
  uint32_t files = 0;  // Files used (1 when jobs share one file).
  uint64_t size = 0;   // Bytes per file.
  bool includes_fdatasync = false;
  // Buffered writes cover each block once (no warm-up) so every counted byte
  // is flushed by the closing fdatasync; the window may end before the
  // duration.
  bool single_pass = false;

  double window_seconds = 0;
  uint64_t bytes = 0;
  uint64_t ios = 0;
  double bytes_per_second = 0;
  double iops = 0;
  LatencySummary latency;
  double unloaded_latency_p50 = 0;  // Depth-1 latency; 0 without calibration.

  double cpu_seconds = 0;  // User + system of the whole process in the window.
  double cpu_seconds_per_gb = 0;
  double max_job_cpu_fraction = 0;  // Busiest job thread's CPU / window.
  bool cpu_saturated = false;

  FilesystemInfo filesystem;

  // Little's law check: bytes/s vs in-flight × block / mean latency.
  double littles_law_ratio = 0;
  double queueing_factor = 0;  // Loaded p50 / unloaded p50.
  bool latency_bound = false;
  std::string verdict;  // One sentence naming the limit.
};

// The context's stop request (a signal, the exporter's shutdown) aborts the
// run: the probe removes its files and fails with kInterrupted. Its root says
// where mountinfo is read (procfs). A full filesystem, or one with too little
// room to leave the reserve, fails with kNoSpace.
Result<StorageProbeResult> RunStorageProbe(const StorageProbeOptions& options,
                                           const probe::ProbeContext& context);

}  // namespace fabric::storage
