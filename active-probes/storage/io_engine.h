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

class IoEngine {
 public:
  virtual ~IoEngine() = default;

  virtual std::string_view name() const = 0;
  // I/Os this engine really keeps in flight.
  virtual uint32_t depth() const = 0;
  virtual bool registered_buffers() const = 0;
  // The buffer of one slot (block_size bytes, page aligned).
  virtual uint8_t* buffer(uint32_t slot) = 0;

  // Queues one I/O on a free slot.
  virtual Status Queue(uint32_t slot, IoKind kind, int fd, uint64_t offset, uint32_t length) = 0;
  // Hands queued I/Os to the kernel now. A caller about to wait need not: Reap() submits what
  // is queued in the same system call as its wait.
  virtual Status Submit() = 0;
  // True when Reap() would return without waiting.
  virtual bool CompletionReady() = 0;
  // Submits what is queued, waits up to `timeout_ns` for at least one completion unless one is
  // ready, and returns how many were written to `out` (0 on timeout or EINTR).
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
// Absent when io_uring support was not built.
Result<std::unique_ptr<IoEngine>> MakeUringEngine(uint32_t depth, uint32_t block_size);

}  // namespace fabric::storage
