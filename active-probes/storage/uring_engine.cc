// The io_uring engine: one ring per job, `depth` slots whose buffers are
// registered with the ring (READ_FIXED/WRITE_FIXED skip per-I/O page pinning,
// as fio's fixedbufs does).
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include "active-probes/storage/io_engine.h"

#ifdef FABRIC_WITH_URING
#include <liburing.h>
#include <sys/uio.h>

#include <vector>
#endif

namespace fabric::storage {

#ifdef FABRIC_WITH_URING
namespace {

// Owns an io_uring instance; io_uring_queue_exit exactly once.
class Ring {
 public:
  Ring() = default;
  ~Ring() {
    if (initialised_) io_uring_queue_exit(&ring_);
  }
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;

  int Init(unsigned entries) {
    int rc = io_uring_queue_init(entries, &ring_, 0);
    initialised_ = rc == 0;
    return rc;
  }
  io_uring* get() { return &ring_; }

 private:
  io_uring ring_{};
  bool initialised_ = false;
};

std::string DescribeInitError(int rc) {
  int err = -rc;
  std::string what = "io_uring_queue_init: " + std::string(std::strerror(err));
  if (err == ENOSYS) return what + " (this kernel has no io_uring)";
  if (err == EPERM || err == EACCES) {
    return what + " (io_uring disabled by kernel.io_uring_disabled, seccomp or a container policy)";
  }
  return what;
}

class UringEngine : public IoEngine {
 public:
  UringEngine(uint32_t depth, uint32_t block_size)
      : depth_(depth), block_size_(block_size), memory_(size_t{depth} * block_size) {}

  Status Init() {
    if (memory_.data() == nullptr) return MakeError("cannot allocate the I/O buffers");
    int rc = ring_.Init(depth_);
    if (rc < 0) return MakeError(DescribeInitError(rc));
    std::vector<iovec> iov(depth_);
    for (uint32_t i = 0; i < depth_; ++i) iov[i] = {buffer(i), block_size_};
    // Without registration (e.g. a locked-memory limit) plain READ/WRITE work.
    registered_ = io_uring_register_buffers(ring_.get(), iov.data(), depth_) == 0;
    return OkStatus();
  }

  std::string_view name() const override { return "io_uring"; }
  uint32_t depth() const override { return depth_; }
  bool registered_buffers() const override { return registered_; }
  uint8_t* buffer(uint32_t slot) override {
    return memory_.data() + static_cast<size_t>(slot) * block_size_;
  }

  Status Queue(uint32_t slot, IoKind kind, int fd, uint64_t offset, uint32_t length) override {
    io_uring_sqe* sqe = io_uring_get_sqe(ring_.get());
    if (sqe == nullptr) {
      FABRIC_RETURN_IF_ERROR(Submit());
      sqe = io_uring_get_sqe(ring_.get());
      if (sqe == nullptr) return MakeError("io_uring submission queue full");
    }
    if (kind == IoKind::kRead) {
      if (registered_) {
        io_uring_prep_read_fixed(sqe, fd, buffer(slot), length, offset, static_cast<int>(slot));
      } else {
        io_uring_prep_read(sqe, fd, buffer(slot), length, offset);
      }
    } else {
      if (registered_) {
        io_uring_prep_write_fixed(sqe, fd, buffer(slot), length, offset, static_cast<int>(slot));
      } else {
        io_uring_prep_write(sqe, fd, buffer(slot), length, offset);
      }
    }
    io_uring_sqe_set_data64(sqe, slot);
    return OkStatus();
  }

  Status Submit() override {
    for (;;) {
      int rc = io_uring_submit(ring_.get());
      if (rc >= 0) return OkStatus();
      if (rc == -EINTR || rc == -EAGAIN || rc == -EBUSY) continue;
      return MakeError("io_uring_submit: " + std::string(std::strerror(-rc)));
    }
  }

  bool CompletionReady() override { return io_uring_cq_ready(ring_.get()) > 0; }

  Result<size_t> Reap(std::span<IoCompletion> out, int64_t timeout_ns) override {
    io_uring_cqe* cqe = nullptr;
    if (io_uring_sq_ready(ring_.get()) > 0 || !CompletionReady()) {
      // One io_uring_enter submits and waits; the kernel returns at once if a completion is
      // already there.
      __kernel_timespec ts{timeout_ns / 1000000000, timeout_ns % 1000000000};
      int rc = io_uring_submit_and_wait_timeout(ring_.get(), &cqe, 1, &ts, nullptr);
      if (rc == -ETIME || rc == -EINTR || rc == -EAGAIN) return size_t{0};
      if (rc < 0) {
        return MakeError("io_uring_submit_and_wait: " + std::string(std::strerror(-rc)));
      }
    }
    size_t n = 0;
    unsigned head;
    io_uring_for_each_cqe(ring_.get(), head, cqe) {
      if (n == out.size()) break;
      out[n++] = {static_cast<uint32_t>(io_uring_cqe_get_data64(cqe)), cqe->res};
    }
    io_uring_cq_advance(ring_.get(), static_cast<unsigned>(n));
    return n;
  }

 private:
  uint32_t depth_;
  uint32_t block_size_;
  AlignedBuffer memory_;
  Ring ring_;
  bool registered_ = false;
};

}  // namespace

Result<std::unique_ptr<IoEngine>> MakeUringEngine(uint32_t depth, uint32_t block_size) {
  auto engine = std::make_unique<UringEngine>(depth, block_size);
  FABRIC_RETURN_IF_ERROR(engine->Init());
  return std::unique_ptr<IoEngine>(std::move(engine));
}

#else

Result<std::unique_ptr<IoEngine>> MakeUringEngine(uint32_t, uint32_t) {
  return MakeAbsent("io_uring support was not built (FABRIC_WITH_URING=OFF)");
}

#endif

}  // namespace fabric::storage
