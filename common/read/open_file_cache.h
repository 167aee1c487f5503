// OpenFileCache: sysfs attribute files kept open between scrapes and re-read
// with pread(2) at offset 0, which makes sysfs and procfs generate the value
// afresh. A scrape of a large host reads about a thousand small attributes;
// opening and closing each one (a path lookup, a file allocation, three
// system calls) was most of the scrape's CPU time.
//
// Staleness is what a cache of open files risks, so directories are checked
// on every use: a directory is identified by stat(2) of its path (device,
// inode, link count, modification and change times; files cached within
// 100 ms of a change are not trusted, file times being coarse). If the path now names another
// directory (an interface renamed, a device removed and re-added, a fixture
// tree replaced) or the directory's entries changed (a file replaced by
// rename, the way fixture trees are edited), its cached files are closed and
// opened again. A cached file whose read fails with ENODEV or ESTALE (sysfs
// attributes of a removed device) is opened again once. Contents written in
// place are always seen: pread reads the file as it is now.
//
// Entries not used in the last two sweeps (the scraper sweeps after each
// scrape) are closed, so interfaces that come and go do not pile up file
// descriptors; the cache never holds more than its budget of files and reads
// beyond it open and close as before.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "common/unique_fd.h"

namespace fabric {

// Reads a small attribute with one pread(2) at offset 0 into a 4 KiB buffer
// (some drivers report wrong sizes or return EAGAIN on a second read),
// stripping trailing newlines and NULs; 0 or the errno.
int ReadAttributeAt0(int fd, std::string& value);

// Reads a whole file, stopping once more than `limit` bytes were read; 0 or
// the errno. `at_offset_0`: with pread(2) from offset 0 (a file kept open and
// read again); else with read(2) from the file's position (any file, pipes
// such as --config.file=/dev/stdin included).
int ReadWhole(int fd, std::string& value, size_t limit, bool at_offset_0);

class OpenFileCache;

// One directory of attributes with the files read from it so far.
class CachedDirectory {
 public:
  CachedDirectory(OpenFileCache& cache, UniqueFd fd);
  ~CachedDirectory();

  // Reads attribute `name` (whole_limit 0: ReadAttributeAt0) or the whole
  // file (ReadWhole from offset 0 with that limit); 0 or the errno, with `op` naming the
  // call that failed ("open" or "read").
  int Read(const std::string& name, std::string& value, const char*& op, size_t whole_limit = 0);

  int fd() const { return fd_.get(); }

 private:
  friend class OpenFileCache;
  OpenFileCache& cache_;
  const UniqueFd fd_;
  uint64_t identity_[5] = {};  // st_dev, st_ino, mtime and ctime (ns).
  bool settled_ = false;       // Unchanged for a while when opened (see kSettledNs).
  uint64_t last_used_ = 0;     // Sweep generation.
  std::mutex mutex_;
  std::unordered_map<std::string, UniqueFd> files_;
};

class OpenFileCache {
 public:
  // The process's cache, used by AttributeDir; disabled (0 files) until the
  // exporter enables it.
  static OpenFileCache& Global();

  // At most `max_files` descriptors (attribute files and their directories)
  // are kept open; 0 disables the cache and closes everything it holds.
  void SetBudget(size_t max_files);

  // The directory at `path`, validated as above; nullptr with `err` set when
  // it cannot be opened (or the cache is disabled or full, err 0).
  std::shared_ptr<CachedDirectory> Directory(const std::string& path, int& err);

  // Closes what was not used since the sweep before the last one.
  void Sweep();

  // Descriptors held, directories included (what the budget counts).
  size_t open_files() const;
  size_t open_directories() const;

 private:
  friend class CachedDirectory;
  // The descriptor count is kept without mutex_: a CachedDirectory gives its
  // descriptors back when its last reference goes, which can happen while
  // mutex_ is held (an entry replaced or swept), and taking mutex_ there again
  // deadlocked the exporter.
  bool ReserveFile();
  void ReleaseFiles(size_t n);

  mutable std::mutex mutex_;  // directories_ and generation_.
  std::atomic<size_t> budget_{0};
  std::atomic<size_t> files_{0};
  uint64_t generation_ = 0;
  std::unordered_map<std::string, std::shared_ptr<CachedDirectory>> directories_;
};

}  // namespace fabric
