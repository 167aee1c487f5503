#include "active-probes/tcp/stream_io.h"

#include <fcntl.h>
#include <linux/errqueue.h>
#include <linux/magic.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/vfs.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "active-probes/tcp/receive_batching.h"
#include "active-probes/tcp/unsent_limit.h"
#include "common/thread_name.h"

namespace fabric::probe {
namespace {

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif

bool IsEndOfStream(int err) {
  return err == EPIPE || err == ECONNRESET || err == ESHUTDOWN || err == ENOTCONN || err == EBADF;
}

// Drains MSG_ZEROCOPY completions from the error queue; returns how many
// sends they covered.
void ReapZerocopy(int fd, StreamCounters& c, uint64_t& completed) {
  for (;;) {
    char control[128];
    msghdr msg{};
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) return;
    for (cmsghdr* cm = CMSG_FIRSTHDR(&msg); cm != nullptr; cm = CMSG_NXTHDR(&msg, cm)) {
      bool v4 = cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR;
      bool v6 = cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR;
      if (!v4 && !v6) continue;
      sock_extended_err serr{};
      std::memcpy(&serr, CMSG_DATA(cm), sizeof(serr));
      if (serr.ee_errno != 0 || serr.ee_origin != SO_EE_ORIGIN_ZEROCOPY) continue;
      uint64_t n = static_cast<uint64_t>(serr.ee_data - serr.ee_info) + 1;
      completed += n;
      c.zc_sends.fetch_add(n, std::memory_order_relaxed);
      if ((serr.ee_code & SO_EE_CODE_ZEROCOPY_COPIED) != 0) {
        c.zc_copied.fetch_add(n, std::memory_order_relaxed);
      }
    }
  }
}

}  // namespace

std::string_view SendModeName(SendMode m) {
  switch (m) {
    case SendMode::kSendfile:
      return "sendfile";
    case SendMode::kCopy:
      return "copy";
    case SendMode::kZerocopy:
      return "zerocopy";
  }
  return "?";
}

Result<SendMode> ParseSendMode(std::string_view s) {
  if (s == "sendfile") return SendMode::kSendfile;
  if (s == "copy") return SendMode::kCopy;
  if (s == "zerocopy") return SendMode::kZerocopy;
  return MakeError("unknown sender mode \"" + std::string(s) + "\" (sendfile, copy, zerocopy)");
}

namespace {

// sendfile() splices the payload's pages into the socket. From a disk
// filesystem's page cache the kernel looks them up in batches
// (filemap_splice_read); from shmem (a memfd, tmpfs) one page at a time, with
// a folio lock and unlock each (shmem_file_splice_read): on loopback that
// lookup was 12-16% of the sending thread's CPU, against 7-9% for iperf3 -Z,
// whose file is in /tmp (perf record; docs/performance.md). So: an unnamed
// O_TMPFILE on the first writable non-tmpfs directory, else a memfd. The file
// is written with one pwrite (a full disk fails here, with an error, rather
// than with SIGBUS through a mapping; and ext4 then keeps it in large folios,
// fewer to look up) and is never linked, so it goes when the last descriptor
// closes.
UniqueFd OpenPageCacheFile(size_t bytes) {
  const char* tmpdir = std::getenv("TMPDIR");
  for (const char* dir : {tmpdir, "/var/tmp", "/tmp"}) {
    if (dir == nullptr || *dir == '\0') continue;
    UniqueFd fd(open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
    if (!fd.valid()) continue;
    struct statfs fs {};
    if (fstatfs(fd.get(), &fs) != 0 || fs.f_type == TMPFS_MAGIC) continue;
    if (ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0) continue;
    return fd;
  }
  return UniqueFd();
}

}  // namespace

Result<std::shared_ptr<Payload>> Payload::Create(size_t block_bytes, SendMode mode) {
  std::shared_ptr<Payload> p(new Payload());
  p->block_ = block_bytes;
  // One block, re-sent every call: its few pages stay cache-hot, so on
  // loopback and veth the receiver's copy is not slowed by a cold source (what
  // iperf3 -Z does with its one-block file). Contents never matter.
  p->size_ = block_bytes;
  if (mode == SendMode::kSendfile) p->fd_ = OpenPageCacheFile(p->size_);
  p->page_cache_ = p->fd_.valid();
  if (!p->fd_.valid()) {
    p->fd_.Reset(memfd_create("fabric_probe_payload", MFD_CLOEXEC));
    if (!p->fd_.valid()) return MakeError(std::string("memfd_create: ") + std::strerror(errno));
    if (ftruncate(p->fd_.get(), static_cast<off_t>(p->size_)) != 0) {
      return MakeError(std::string("ftruncate memfd: ") + std::strerror(errno));
    }
  }
  // Non-zero, non-repeating-page content, so nothing along the path can
  // shortcut zero pages.
  std::vector<char> content(p->size_);
  for (size_t i = 0; i < p->size_; ++i) content[i] = static_cast<char>((i * 131 + i / 4096) | 1);
  for (size_t done = 0; done < p->size_;) {
    ssize_t n =
        pwrite(p->fd_.get(), content.data() + done, p->size_ - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return MakeError(std::string("writing the payload: ") +
                       (n < 0 ? std::strerror(errno) : "no progress"));
    }
    done += static_cast<size_t>(n);
  }
  void* m = mmap(nullptr, p->size_, PROT_READ, MAP_SHARED, p->fd_.get(), 0);
  if (m == MAP_FAILED) return MakeError(std::string("mmap payload: ") + std::strerror(errno));
  p->data_ = static_cast<char*>(m);
  return p;
}

Payload::~Payload() {
  if (data_ != nullptr) munmap(data_, size_);
}

StreamSet::StreamSet(std::shared_ptr<Payload> payload, SendMode mode, uint64_t max_bytes_per_stream,
                     uint32_t recv_block, uint32_t unsent_limit)
    : payload_(std::move(payload)),
      mode_(mode),
      max_bytes_(max_bytes_per_stream),
      recv_block_(recv_block != 0 ? recv_block
                                  : DefaultRecvBlock(static_cast<uint32_t>(payload_->block()))),
      unsent_limit_(unsent_limit) {}

StreamSet::~StreamSet() {
  Abort();
  Join(std::chrono::milliseconds(2000));
}

Status StreamSet::Start(std::vector<StreamSpec> specs) {
  for (auto& spec : specs) {
    if (spec.send && mode_ == SendMode::kZerocopy) {
      int one = 1;
      if (setsockopt(spec.fd.get(), SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)) != 0) {
        return MakeError(std::string("zerocopy: SO_ZEROCOPY not available: ") +
                         std::strerror(errno));
      }
    }
    if (spec.send) {
      if (auto s = SetUnsentLimit(spec.fd.get(), unsent_limit_); !s.ok()) return s;
    }
    auto w = std::make_unique<Worker>();
    w->spec = std::move(spec);
    workers_.push_back(std::move(w));
  }
  for (auto& w : workers_) {
    Worker* raw = w.get();
    w->thread = std::thread([this, raw] {
      NameThisThread(raw->spec.send ? "tcp-send" : "tcp-recv");
      Run(*raw);
    });
  }
  return OkStatus();
}

void StreamSet::Run(Worker& w) {
  if (w.spec.cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(w.spec.cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  }
  if (w.spec.send) {
    RunSender(w);
    // FIN tells the receiver the window is over; it reads to EOF.
    shutdown(w.spec.fd.get(), SHUT_WR);
  } else {
    RunReceiver(w);
  }
  w.counters.cpu_seconds_at_exit.store(ThreadCpuSeconds(pthread_self()), std::memory_order_relaxed);
  if (total_ != nullptr) {
    total_->fetch_add(w.counters.bytes.load(std::memory_order_relaxed), std::memory_order_relaxed);
  }
  w.counters.done.store(true, std::memory_order_release);
}

void StreamSet::RunSender(Worker& w) {
  const int fd = w.spec.fd.get();
  const size_t block = payload_->block();
  StreamCounters& c = w.counters;
  off_t offset = 0;
  uint64_t zc_issued = 0, zc_completed = 0;
  while (!stop_.load(std::memory_order_relaxed)) {
    if (max_bytes_ != 0 && c.bytes.load(std::memory_order_relaxed) >= max_bytes_) break;
    ssize_t n = 0;
    switch (mode_) {
      case SendMode::kSendfile:
        offset = 0;
        n = sendfile(fd, payload_->file(), &offset, block);
        break;
      case SendMode::kCopy:
        n = send(fd, payload_->data(), block, MSG_NOSIGNAL);
        break;
      case SendMode::kZerocopy:
        n = send(fd, payload_->data(), block, MSG_NOSIGNAL | MSG_ZEROCOPY);
        if (n >= 0) ++zc_issued;
        ReapZerocopy(fd, c, zc_completed);
        if (n < 0 && errno == ENOBUFS) {
          // Too many pinned pages in flight: wait for completions.
          pollfd p{fd, 0, 0};
          poll(&p, 1, 50);
          ReapZerocopy(fd, c, zc_completed);
          continue;
        }
        break;
    }
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      if (!IsEndOfStream(errno) && !stop_.load()) w.error = std::strerror(errno);
      break;
    }
    if (n == 0) break;
    c.bytes.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
  }
  if (mode_ == SendMode::kZerocopy) {
    // Collect the tail so the copied fraction covers every send.
    for (int i = 0; i < 20 && zc_completed < zc_issued; ++i) {
      pollfd p{fd, 0, 0};
      poll(&p, 1, 10);
      ReapZerocopy(fd, c, zc_completed);
    }
  }
}

void StreamSet::RunReceiver(Worker& w) {
  const int fd = w.spec.fd.get();
  std::vector<char> buf(recv_block_);
  StreamCounters& c = w.counters;
  ReceiveBatching batching(fd, buf.size());
  for (;;) {
    ssize_t n = recv(fd, buf.data(), buf.size(), 0);
    // EAGAIN: nothing arrived within the batching's receive timeout.
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) {
      if (!IsEndOfStream(errno) && !stop_.load()) w.error = std::strerror(errno);
      break;
    }
    if (n == 0) {
      // The window's end edge can reach this side after the sender stopped
      // (a delayed control message): this is when the data ended.
      const auto now = std::chrono::steady_clock::now().time_since_epoch();
      c.peer_closed_ns.store(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count(),
                             std::memory_order_relaxed);
      break;
    }
    c.bytes.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
    batching.Count(static_cast<size_t>(n));
    if (max_bytes_ != 0 && c.bytes.load(std::memory_order_relaxed) >= max_bytes_) {
      w.error = "byte limit reached";
      break;
    }
  }
}

std::vector<StreamSnapshot> StreamSet::Snapshot() const {
  std::vector<StreamSnapshot> out;
  out.reserve(workers_.size());
  for (const auto& w : workers_) {
    StreamSnapshot s;
    s.bytes = w->counters.bytes.load(std::memory_order_relaxed);
    // A receiver can see the peer's FIN before this side's window edge; a
    // finished thread's clock cannot be read (ThreadCpuSeconds returns 0).
    const StreamCounters& c = w->counters;
    if (!c.done.load(std::memory_order_acquire)) {
      s.thread_cpu_seconds = ThreadCpuSeconds(const_cast<std::thread&>(w->thread).native_handle());
    }
    if (s.thread_cpu_seconds == 0 && c.done.load(std::memory_order_acquire)) {
      s.thread_cpu_seconds = c.cpu_seconds_at_exit.load(std::memory_order_relaxed);
    }
    s.tcp = SampleTcpInfo(w->spec.fd.get());
    s.zc_sends = w->counters.zc_sends.load(std::memory_order_relaxed);
    s.zc_copied = w->counters.zc_copied.load(std::memory_order_relaxed);
    if (w->spec.send) s.unsent_limit = GetUnsentLimit(w->spec.fd.get()).value_or(0);
    if (int64_t ns = c.peer_closed_ns.load(std::memory_order_relaxed); ns != 0) {
      s.peer_closed = std::chrono::steady_clock::time_point(
          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
              std::chrono::nanoseconds(ns)));
    }
    out.push_back(s);
  }
  return out;
}

void StreamSet::StopSending() { stop_.store(true); }

void StreamSet::Abort() {
  stop_.store(true);
  for (auto& w : workers_) shutdown(w->spec.fd.get(), SHUT_RDWR);
}

void StreamSet::Join(std::chrono::milliseconds timeout) {
  if (joined_) return;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    bool all = true;
    for (auto& w : workers_) all = all && w->counters.done.load(std::memory_order_acquire);
    if (all || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  Abort();
  for (auto& w : workers_) {
    if (w->thread.joinable()) w->thread.join();
  }
  joined_ = true;
}

std::string StreamSet::FirstError() const {
  for (const auto& w : workers_) {
    if (!w->error.empty()) return w->error;
  }
  return "";
}

uint32_t DefaultRecvBlock(uint32_t send_block) { return std::max(kDefaultRecvBlock, send_block); }

std::vector<int> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return out;
  for (int i = 0; i < CPU_SETSIZE; ++i) {
    if (CPU_ISSET(i, &set)) out.push_back(i);
  }
  return out;
}

}  // namespace fabric::probe
