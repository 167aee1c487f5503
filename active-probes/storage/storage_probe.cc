#include "active-probes/storage/storage_probe.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "active-probes/storage/errno_code.h"
#include "active-probes/storage/io_engine.h"
#include "active-probes/storage/job_runner.h"
#include "active-probes/storage/probe_files.h"
#include "active-probes/storage/verdict.h"
#include "common/thread_name.h"

namespace fabric::storage {

std::string_view ModeName(Mode mode) {
  switch (mode) {
    case Mode::kRead:
      return "read";
    case Mode::kWrite:
      return "write";
    case Mode::kRandRead:
      return "randread";
    case Mode::kRandWrite:
      return "randwrite";
  }
  return "?";
}

Result<Mode> ParseMode(std::string_view s) {
  for (Mode m : {Mode::kRead, Mode::kWrite, Mode::kRandRead, Mode::kRandWrite}) {
    if (s == ModeName(m)) return m;
  }
  return MakeError("unknown mode \"" + std::string(s) +
                   "\" (want read, write, randread or randwrite)");
}

bool IsWrite(Mode mode) { return mode == Mode::kWrite || mode == Mode::kRandWrite; }
bool IsRandom(Mode mode) { return mode == Mode::kRandRead || mode == Mode::kRandWrite; }

namespace {

constexpr uint64_t kDefaultSize = 256ull << 20;
constexpr uint32_t kMaxBlock = 64u << 20;
constexpr double kCalibrationSeconds = 0.25;

Unexpected Interrupted() {
  return MakeError(ErrorCode::kInterrupted, "interrupted; the probe's files were removed");
}

Status Validate(const StorageProbeOptions& o, uint32_t block_size) {
  if (block_size == 0 || block_size % 4096 != 0 || block_size > kMaxBlock) {
    return MakeError("block size must be a multiple of 4 KiB up to 64 MiB (O_DIRECT alignment)");
  }
  if (o.queue_depth < 1 || o.queue_depth > 4096) return MakeError("queue depth must be 1..4096");
  if (o.jobs < 1 || o.jobs > 256) return MakeError("jobs must be 1..256");
  if (o.files > o.jobs) return MakeError("files must not exceed jobs (each file needs a job)");
  if (!(o.duration_seconds > 0) || o.duration_seconds > 3600) {
    return MakeError("duration must be in (0, 3600] seconds");
  }
  if (!(o.warmup_seconds >= 0) || o.warmup_seconds > 600) {
    return MakeError("warm-up must be in [0, 600] seconds");
  }
  bool has_dir = !o.directory.empty();
  bool has_dev = !o.device.empty();
  if (has_dir == has_dev) return MakeError("name exactly one of a directory (--path) or --device");
  if (has_dev && IsWrite(o.mode)) {
    return MakeError("--device is read-only: writing a raw device would destroy its data");
  }
  if ((has_dev || !o.existing_file.empty()) && o.files > 0) {
    return MakeError("files=N creates its own files; it cannot be combined with --file/--device");
  }
  if (!o.existing_file.empty() && IsWrite(o.mode)) {
    return MakeError("--file is read-only; write modes create (and remove) their own files");
  }
  return OkStatus();
}

uint32_t OnlineCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1l, ::sysconf(_SC_NPROCESSORS_ONLN));
}

// Largest multiple of `block` no bigger than 1 MiB that divides `size`.
uint32_t FillBlock(uint64_t size, uint32_t block) {
  uint32_t k = std::max(1u, (1u << 20) / block);
  for (; k > 1; --k) {
    if (size % (uint64_t{block} * k) == 0) break;
  }
  return block * k;
}

}  // namespace

Result<StorageProbeResult> RunStorageProbe(const StorageProbeOptions& o,
                                           const probe::ProbeContext& context) {
  const StopToken& stop = context.stop;
  const bool write = IsWrite(o.mode);
  const bool random = IsRandom(o.mode);
  const uint32_t block = o.block_size != 0 ? o.block_size : (random ? 4096u : 1u << 20);
  FABRIC_RETURN_IF_ERROR(Validate(o, block));

  StorageProbeResult r;
  r.mode = o.mode;
  r.block_size = block;
  r.jobs = o.jobs;
  r.includes_fdatasync = write;

  // Open or create the files. `files` owns them: every return below removes
  // what was created.
  std::unique_ptr<ProbeDir> dir;
  std::vector<ProbeFile> files;
  uint64_t size = o.size;
  if (!o.device.empty()) {
    auto dev = ProbeFile::OpenDevice(o.device);
    if (!dev.ok()) return MakeError(dev.error());
    if (size == 0 || size > dev->size()) size = dev->size();
    r.target = o.device;
    r.filesystem.type = "block device";
    r.filesystem.source = o.device;
    files.push_back(std::move(*dev));
  } else {
    auto opened = ProbeDir::Open(o.directory);
    if (!opened.ok()) return MakeError(opened.error());
    dir = std::make_unique<ProbeDir>(std::move(*opened));
    r.filesystem = LookupFilesystem(*dir, context.root.procfs());
    if (!o.existing_file.empty()) {
      auto f = ProbeFile::OpenExisting(*dir, o.existing_file);
      if (!f.ok()) return MakeError(f.error());
      if (size == 0) size = f->size();
      if (size > f->size()) {
        return MakeError(f->display_name() + " holds " + std::to_string(f->size()) +
                         " bytes, less than the " + std::to_string(size) + " asked for");
      }
      r.target = f->display_name();
      files.push_back(std::move(*f));
    } else {
      if (size == 0) size = kDefaultSize;
      size -= size % block;
      uint32_t count = std::max(1u, o.files);
      auto avail = dir->AvailableBytes();
      if (!avail.ok()) return MakeError(avail.error());
      uint64_t need = size * count;
      if (*avail < need || *avail - need < o.reserve_bytes) {
        return MakeError(ErrorCode::kNoSpace, "refusing to write " + std::to_string(need) +
                                                  " bytes in " + dir->path() + ": " +
                                                  std::to_string(*avail) +
                                                  " bytes are free and the probe must leave " +
                                                  std::to_string(o.reserve_bytes) + " (--reserve)");
      }
      for (uint32_t i = 0; i < count; ++i) {
        auto f = ProbeFile::Create(*dir, "fabric_probe_storage." + std::to_string(i));
        if (!f.ok()) return MakeError(f.error());
        files.push_back(std::move(*f));
      }
      r.target = dir->path();
    }
  }
  size -= size % block;
  r.size = size;
  r.files = static_cast<uint32_t>(files.size());
  uint32_t jobs_per_file = (o.jobs + r.files - 1) / r.files;
  if (size / block < jobs_per_file) {
    return MakeError("size " + std::to_string(size) + " is too small for " +
                     std::to_string(jobs_per_file) + " job(s) of " + std::to_string(block) +
                     "-byte blocks per file");
  }

  r.direct = o.direct;
  if (o.direct) {
    for (auto& f : files) {
      Status s = f.EnableDirect();
      if (!s.ok()) {
        r.direct = false;
        r.direct_note = s.error().message + "; measured through the page cache instead";
        break;
      }
    }
  }

  // Engines: the first one decides io_uring vs the labelled psync fallback.
  EngineRequest request;
  request.want_uring = o.engine != EngineChoice::kPsync;
  request.require_uring = o.engine == EngineChoice::kIoUring;
  request.depth = o.queue_depth;
  request.block_size = block;
  auto first = MakeEngine(request);
  if (!first.ok()) return MakeError(first.error());
  r.engine_note = first->fallback_note;
  request.want_uring = first->fallback_note.empty() && request.want_uring;
  std::vector<std::unique_ptr<IoEngine>> engines;
  engines.push_back(std::move(first->engine));
  for (uint32_t j = 1; j < o.jobs; ++j) {
    auto e = MakeEngine(request);
    if (!e.ok()) return MakeError(e.error());
    engines.push_back(std::move(e->engine));
  }
  r.engine = std::string(engines[0]->name());
  r.queue_depth = engines[0]->depth();
  r.registered_buffers = engines[0]->registered_buffers();
  r.ring_setup = std::string(engines[0]->setup());

  // Prepare: reads need every byte written (incompressible, no holes);
  // writes get the space allocated up front, as fio does.
  bool created = o.existing_file.empty() && o.device.empty();
  for (auto& f : files) {
    if (created && !write) {
      uint32_t fill_block = FillBlock(size, block);
      request.block_size = fill_block;
      request.depth = std::min(o.queue_depth, 32u);
      auto filler = MakeEngine(request);
      if (!filler.ok()) return MakeError(filler.error());
      FABRIC_RETURN_IF_ERROR(
          FillFile(*filler->engine, f.fd(), size, fill_block, f.display_name(), stop));
      if (::fdatasync(f.fd()) != 0) {
        const int err = errno;
        return MakeError(CodeOfErrno(err), f.display_name() + ": fdatasync: " + std::strerror(err));
      }
    } else if (created) {
      if (::fallocate(f.fd(), 0, 0, static_cast<off_t>(size)) != 0 && errno != EOPNOTSUPP) {
        int err = errno;
        if (err == ENOSPC) {
          return MakeError(ErrorCode::kNoSpace, f.display_name() + ": filesystem full (ENOSPC)");
        }
        return MakeError(f.display_name() + ": fallocate: " + std::strerror(err));
      }
    }
    if (!write && o.device.empty()) {
      FABRIC_RETURN_IF_ERROR(CheckFullyAllocated(f.fd(), size, f.display_name()));
    }
    // Buffered reads must come from the disk, not from the fill's page cache.
    if (!r.direct && !write) (void)::posix_fadvise(f.fd(), 0, 0, POSIX_FADV_DONTNEED);
    if (stop.stop_requested()) return Interrupted();
  }

  // Job layout: job j uses file j % files; jobs sharing a file split it.
  std::vector<JobSpec> specs(o.jobs);
  std::atomic<bool> abort{false};
  for (uint32_t j = 0; j < o.jobs; ++j) {
    uint32_t file = j % r.files;
    uint32_t sharing = o.jobs / r.files + (file < o.jobs % r.files ? 1 : 0);
    uint32_t index = j / r.files;
    uint64_t region = (size / sharing) / block * block;
    JobSpec& s = specs[j];
    s.kind = write ? IoKind::kWrite : IoKind::kRead;
    s.random = random;
    s.fd = files[file].fd();
    s.file_name = files[file].display_name();
    s.region_start = region * index;
    s.region_end = s.region_start + region;
    s.block_size = block;
    s.seed = 0x9E3779B97F4A7C15ull * (j + 1);
    s.drop_behind = !r.direct && !write;
    s.single_pass = !r.direct && write;
    s.stop = stop;
    s.abort = &abort;
  }

  if (o.calibrate) {
    EngineRequest one = request;
    one.depth = 1;
    one.block_size = block;
    auto engine = MakeEngine(one);
    if (!engine.ok()) return MakeError(engine.error());
    JobSpec cal = specs[0];
    cal.window_start_ns = MonotonicNanos() + 20'000'000;
    cal.window_end_ns =
        cal.window_start_ns +
        static_cast<int64_t>(std::min(kCalibrationSeconds, o.duration_seconds) * 1e9);
    JobStats stats;
    FABRIC_RETURN_IF_ERROR(RunJob(*engine->engine, cal, stats));
    if (stop.stop_requested()) return Interrupted();
    r.unloaded_latency_p50 = stats.latency.Quantile(0.5) / 1e9;
  }

  // A single-pass buffered write counts from its first byte: anything written
  // in a warm-up would still be flushed inside the window, uncounted.
  r.single_pass = !r.direct && write;
  int64_t window_start = MonotonicNanos();
  if (!r.single_pass) window_start += 5'000'000 + static_cast<int64_t>(o.warmup_seconds * 1e9);
  int64_t window_end = window_start + static_cast<int64_t>(o.duration_seconds * 1e9);
  std::vector<JobStats> stats(o.jobs);
  std::vector<Status> statuses(o.jobs, OkStatus());
  std::vector<std::thread> threads;
  threads.reserve(o.jobs);
  for (uint32_t j = 0; j < o.jobs; ++j) {
    specs[j].window_start_ns = window_start;
    specs[j].window_end_ns = window_end;
    threads.emplace_back([&, j] {
      NameThisThread("storage-job");
      statuses[j] = RunJob(*engines[j], specs[j], stats[j]);
    });
  }
  SleepUntil(window_start);
  double cpu_start = ProcessCpuSeconds();
  for (auto& t : threads) t.join();
  for (const auto& s : statuses) FABRIC_RETURN_IF_ERROR(s);
  if (stop.stop_requested()) return Interrupted();
  if (write) {
    // The data is not written until it is durable: the sync is inside the window.
    for (auto& f : files) {
      if (::fdatasync(f.fd()) != 0) {
        const int err = errno;
        return MakeError(CodeOfErrno(err), f.display_name() + ": fdatasync: " + std::strerror(err));
      }
    }
  }
  int64_t end = MonotonicNanos();
  r.cpu_seconds = ProcessCpuSeconds() - cpu_start;

  LatencyHistogram latency;
  for (const auto& s : stats) {
    r.bytes += s.bytes;
    r.ios += s.ios;
    latency.Merge(s.latency);
  }
  r.window_seconds = static_cast<double>(end - window_start) / 1e9;
  r.bytes_per_second = r.bytes / r.window_seconds;
  r.iops = r.ios / r.window_seconds;
  r.latency.count = latency.count();
  r.latency.p50 = latency.Quantile(0.5) / 1e9;
  r.latency.p99 = latency.Quantile(0.99) / 1e9;
  r.latency.p999 = latency.Quantile(0.999) / 1e9;
  r.latency.mean = latency.mean() / 1e9;
  r.latency.max = latency.max() / 1e9;
  r.cpu_seconds_per_gb = r.bytes > 0 ? r.cpu_seconds / (r.bytes / 1e9) : 0;
  for (const auto& s : stats) {
    r.max_job_cpu_fraction = std::max(r.max_job_cpu_fraction, s.cpu_seconds / r.window_seconds);
  }
  r.cpu_saturated =
      r.max_job_cpu_fraction >= 0.9 || r.cpu_seconds / r.window_seconds >= 0.9 * OnlineCpus();
  ApplyVerdict(r);

  for (auto& f : files) FABRIC_RETURN_IF_ERROR(f.Remove());
  return r;
}

}  // namespace fabric::storage
