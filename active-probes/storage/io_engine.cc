#include "active-probes/storage/io_engine.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace fabric::storage {

AlignedBuffer::AlignedBuffer(size_t bytes) {
  void* p = nullptr;
  if (::posix_memalign(&p, 4096, bytes) == 0) {
    data_ = static_cast<uint8_t*>(p);
    size_ = bytes;
  }
}

AlignedBuffer::~AlignedBuffer() { ::free(data_); }

AlignedBuffer::AlignedBuffer(AlignedBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

AlignedBuffer& AlignedBuffer::operator=(AlignedBuffer&& other) noexcept {
  if (this != &other) {
    ::free(data_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

std::string_view RingSetupName(RingSetup setup) {
  switch (setup) {
    case RingSetup::kDeferTaskrun:
      return "defer_taskrun";
    case RingSetup::kCoopTaskrun:
      return "coop_taskrun";
    case RingSetup::kPlain:
      return "plain";
  }
  return "?";
}

namespace {

// One synchronous pread/pwrite per Submit(): depth 1, the baseline every
// kernel has.
class PsyncEngine : public IoEngine {
 public:
  explicit PsyncEngine(uint32_t block_size) : buffer_(block_size) {}

  bool ok() const { return buffer_.data() != nullptr; }
  std::string_view name() const override { return "psync"; }
  uint32_t depth() const override { return 1; }
  bool registered_buffers() const override { return false; }
  uint8_t* buffer(uint32_t) override { return buffer_.data(); }

  Status Queue(uint32_t slot, IoKind kind, int fd, uint64_t offset, uint32_t length) override {
    if (queued_ || done_) return MakeError("psync engine: only one I/O in flight");
    pending_ = {slot, kind, fd, offset, length};
    queued_ = true;
    return OkStatus();
  }

  Status Submit() override {
    if (!queued_) return OkStatus();
    queued_ = false;
    ssize_t n;
    do {
      n = pending_.kind == IoKind::kRead ? ::pread(pending_.fd, buffer_.data(), pending_.length,
                                                   static_cast<off_t>(pending_.offset))
                                         : ::pwrite(pending_.fd, buffer_.data(), pending_.length,
                                                    static_cast<off_t>(pending_.offset));
    } while (n < 0 && errno == EINTR);
    result_ = {pending_.slot, n < 0 ? -static_cast<int64_t>(errno) : n};
    done_ = true;
    return OkStatus();
  }

  Result<size_t> Reap(std::span<IoCompletion> out, int64_t) override {
    if (!done_ || out.empty()) return size_t{0};
    out[0] = result_;
    done_ = false;
    return size_t{1};
  }

 private:
  struct Pending {
    uint32_t slot;
    IoKind kind;
    int fd;
    uint64_t offset;
    uint32_t length;
  };
  AlignedBuffer buffer_;
  Pending pending_{};
  IoCompletion result_{};
  bool queued_ = false;
  bool done_ = false;
};

}  // namespace

Result<std::unique_ptr<IoEngine>> MakePsyncEngine(uint32_t block_size) {
  auto engine = std::make_unique<PsyncEngine>(block_size);
  if (!engine->ok())
    return MakeError("cannot allocate a " + std::to_string(block_size) + "-byte aligned buffer");
  return std::unique_ptr<IoEngine>(std::move(engine));
}

Result<EngineSetup> MakeEngine(const EngineRequest& request) {
  EngineSetup setup;
  if (request.want_uring) {
    auto uring = MakeUringEngine(request.depth, request.block_size);
    if (uring.ok()) {
      setup.engine = std::move(*uring);
      return setup;
    }
    if (request.require_uring) return MakeError(uring.error());
    setup.fallback_note = uring.error().message + "; fell back to pread/pwrite (psync, depth 1)";
  }
  auto psync = MakePsyncEngine(request.block_size);
  if (!psync.ok()) return MakeError(psync.error());
  setup.engine = std::move(*psync);
  return setup;
}

}  // namespace fabric::storage
