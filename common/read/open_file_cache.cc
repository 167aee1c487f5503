#include "common/read/open_file_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <utility>
#include <vector>

namespace fabric {
namespace {

void Identity(const struct stat& st, uint64_t (&out)[5]) {
  auto ns = [](const timespec& t) {
    return static_cast<uint64_t>(t.tv_sec) * 1000000000u + static_cast<uint64_t>(t.tv_nsec);
  };
  out[0] = st.st_dev;
  out[1] = st.st_ino;
  out[2] = ns(st.st_mtim);
  out[3] = ns(st.st_ctim);
  out[4] = st.st_nlink;  // A subdirectory added or removed.
}

// File times come from a coarse clock (one timer tick, 1-10 ms): a change made in the same tick
// as the one before leaves the directory's times as they were. Files cached while the directory
// was changed this recently are therefore not trusted on the next scrape, only files cached once
// it had been still for this long.
constexpr uint64_t kSettledNs = 100'000'000;

bool Settled(const uint64_t (&identity)[5]) {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  uint64_t now_ns =
      static_cast<uint64_t>(now.tv_sec) * 1000000000u + static_cast<uint64_t>(now.tv_nsec);
  uint64_t changed = std::max(identity[2], identity[3]);
  return now_ns > changed && now_ns - changed > kSettledNs;
}

}  // namespace

int ReadAttributeAt0(int fd, std::string& value) {
  char buf[4096];
  ssize_t n;
  do {
    n = ::pread(fd, buf, sizeof buf, 0);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return errno;
  value.assign(buf, static_cast<size_t>(n));
  while (!value.empty() && (value.back() == '\n' || value.back() == '\0')) value.pop_back();
  return 0;
}

int ReadWhole(int fd, std::string& value, size_t limit, bool at_offset_0) {
  // Through an uninitialised chunk, appended: growing the string itself by a
  // chunk before each read zero-filled 64 KiB twice per file, a quarter of a
  // scrape's CPU on a host with many NICs.
  constexpr size_t kChunk = 64 * 1024;
  auto chunk = std::make_unique_for_overwrite<char[]>(kChunk);
  value.clear();
  while (value.size() <= limit) {
    ssize_t n = at_offset_0 ? ::pread(fd, chunk.get(), kChunk, static_cast<off_t>(value.size()))
                            : ::read(fd, chunk.get(), kChunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) break;
    value.append(chunk.get(), static_cast<size_t>(n));
  }
  return 0;
}

CachedDirectory::CachedDirectory(OpenFileCache& cache, UniqueFd fd)
    : cache_(cache), fd_(std::move(fd)) {}

CachedDirectory::~CachedDirectory() { cache_.ReleaseFiles(files_.size() + 1); }

int CachedDirectory::Read(const std::string& name, std::string& value, const char*& op,
                          size_t whole_limit) {
  auto read = [&](int fd) {
    return whole_limit == 0 ? ReadAttributeAt0(fd, value) : ReadWhole(fd, value, whole_limit, true);
  };
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = files_.find(name); it != files_.end()) {
    int err = read(it->second.get());
    // ENODEV, ESTALE: the attribute's device went away (sysfs) or the file
    // was replaced under a network filesystem; open the name afresh.
    if (err != ENODEV && err != ESTALE) {
      op = "read";
      return err;
    }
    files_.erase(it);
    cache_.ReleaseFiles(1);
  }
  UniqueFd fd(::openat(fd_.get(), name.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) {
    op = "open";
    return errno;
  }
  op = "read";
  int err = read(fd.get());
  if (cache_.ReserveFile()) files_.emplace(name, std::move(fd));
  return err;
}

OpenFileCache& OpenFileCache::Global() {
  static OpenFileCache* cache = new OpenFileCache();  // Never destroyed: used until exit.
  return *cache;
}

void OpenFileCache::SetBudget(size_t max_files) {
  // Closed outside the lock (a system call per descriptor).
  std::unordered_map<std::string, std::shared_ptr<CachedDirectory>> dropped;
  std::lock_guard<std::mutex> lock(mutex_);
  budget_.store(max_files, std::memory_order_relaxed);
  if (max_files == 0) dropped.swap(directories_);
}

std::shared_ptr<CachedDirectory> OpenFileCache::Directory(const std::string& path, int& err) {
  err = 0;
  if (budget_.load(std::memory_order_relaxed) == 0) return nullptr;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    err = errno;
    return nullptr;
  }
  uint64_t identity[5];
  Identity(st, identity);
  // What this replaces, closed outside the lock (below, too).
  std::shared_ptr<CachedDirectory> stale;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = directories_.find(path);
    if (it != directories_.end()) {
      if (it->second->settled_ &&
          std::equal(std::begin(identity), std::end(identity), it->second->identity_)) {
        it->second->last_used_ = generation_;
        return it->second;
      }
      stale = std::move(it->second);
      directories_.erase(it);
    }
  }
  // The directory's own descriptor counts against the budget too (a container host lists
  // thousands of veths); past it, the caller reads without the cache.
  if (!ReserveFile()) return nullptr;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) {
    err = errno;
    ReleaseFiles(1);
    return nullptr;
  }
  // The identity of what was opened, not of what stat() saw a moment before.
  if (::fstat(fd.get(), &st) != 0) {
    err = errno;
    ReleaseFiles(1);
    return nullptr;
  }
  auto dir = std::make_shared<CachedDirectory>(*this, std::move(fd));
  Identity(st, dir->identity_);
  dir->settled_ = Settled(dir->identity_);
  // Another thread may have put its own copy here meanwhile (two threads reading one directory
  // that keeps changing): this one replaces it.
  std::shared_ptr<CachedDirectory> displaced;
  std::lock_guard<std::mutex> lock(mutex_);
  dir->last_used_ = generation_;
  std::shared_ptr<CachedDirectory>& entry = directories_[path];
  displaced = std::exchange(entry, dir);
  return dir;
}

void OpenFileCache::Sweep() {
  std::vector<std::shared_ptr<CachedDirectory>> unused;  // Closed outside the lock.
  std::lock_guard<std::mutex> lock(mutex_);
  ++generation_;
  for (auto it = directories_.begin(); it != directories_.end();) {
    if (it->second->last_used_ + 2 <= generation_) {
      unused.push_back(std::move(it->second));
      it = directories_.erase(it);
    } else {
      ++it;
    }
  }
}

size_t OpenFileCache::open_files() const { return files_.load(std::memory_order_relaxed); }

size_t OpenFileCache::open_directories() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return directories_.size();
}

bool OpenFileCache::ReserveFile() {
  size_t held = files_.load(std::memory_order_relaxed);
  do {
    if (held >= budget_.load(std::memory_order_relaxed)) return false;
  } while (!files_.compare_exchange_weak(held, held + 1, std::memory_order_relaxed));
  return true;
}

void OpenFileCache::ReleaseFiles(size_t n) { files_.fetch_sub(n, std::memory_order_relaxed); }

}  // namespace fabric
