// IoEngine: how one job thread moves blocks. The io_uring engine keeps
// `depth` I/Os in flight from registered buffers; the psync engine
// (pread/pwrite, depth 1) is the labelled fallback when io_uring is not built
// or the kernel refuses it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "common/result.h"

namespace fabric::storage {

enum class IoKind { kRead, kWrite };

// How an io_uring ring delivers completions, most capable first. kDeferTaskrun
// (COOP_TASKRUN | SINGLE_ISSUER | DEFER_TASKRUN, what fio 3.33 asks for) posts them
// only when the job enters the kernel to wait; kCoopTaskrun posts them without
// interrupting it; kPlain interrupts the running job for each one.
enum class RingSetup { kDeferTaskrun, kCoopTaskrun, kPlain };
std::string_view RingSetupName(RingSetup setup);

struct IoCompletion {
  uint32_t slot = 0;
  int64_t result = 0;  // Bytes moved, or -errno.
};

// Page-aligned memory for O_DIRECT buffers.
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t bytes);
  ~AlignedBuffer();
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  AlignedBuffer(AlignedBuffer&& other) noexcept;
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept;

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// Once it has queued its first I/O, an engine belongs to the thread that queued
// it (an io_uring ring may be single-issuer).
class IoEngine {
 public:
  virtual ~IoEngine() = default;

  virtual std::string_view name() const = 0;
  // The ring setup in use ("" for engines without a ring).
  virtual std::string_view setup() const { return ""; }
  // I/Os this engine really keeps in flight.
  virtual uint32_t depth() const = 0;
  virtual bool registered_buffers() const = 0;
  // The buffer of one slot (block_size bytes, page aligned).
  virtual uint8_t* buffer(uint32_t slot) = 0;

  // Queues one I/O on a free slot (an engine may hand it to the kernel at once); Submit()
  // hands queued I/Os to the kernel, at the latest when the next Reap() waits (io_uring
  // submits and waits in one system call).
  virtual Status Queue(uint32_t slot, IoKind kind, int fd, uint64_t offset, uint32_t length) = 0;
  virtual Status Submit() = 0;
  // Waits up to `timeout_ns` for at least one completion and returns how many
  // were written to `out` (0 on timeout or EINTR).
  virtual Result<size_t> Reap(std::span<IoCompletion> out, int64_t timeout_ns) = 0;
};

struct EngineRequest {
  bool want_uring = true;      // false: psync was asked for.
  bool require_uring = false;  // true: fail instead of falling back.
  uint32_t depth = 32;
  uint32_t block_size = 1 << 20;
};

struct EngineSetup {
  std::unique_ptr<IoEngine> engine;
  std::string fallback_note;  // Why io_uring was not used, when it was wanted.
};

Result<EngineSetup> MakeEngine(const EngineRequest& request);

// Engines are also constructible directly (tests pin one).
Result<std::unique_ptr<IoEngine>> MakePsyncEngine(uint32_t block_size);
// Absent when io_uring support was not built. Falls back from `most_capable` to the
// simpler setups the kernel accepts.
Result<std::unique_ptr<IoEngine>> MakeUringEngine(
    uint32_t depth, uint32_t block_size, RingSetup most_capable = RingSetup::kDeferTaskrun);

}  // namespace fabric::storage
