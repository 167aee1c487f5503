// The read layer: the only code in the exporter that opens files. Parsers get
// the bytes; collectors never touch the filesystem directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/read/open_file_cache.h"
#include "common/result.h"
#include "common/unique_fd.h"

namespace fabric {

// True for the errno values that mean "this attribute does not exist on this
// kernel or driver" rather than a failure: the one place that decides it.
bool IsAbsentErrno(int err);

// Reads a small sysfs/procfs attribute with a single read(2) into a 4 KiB
// buffer: some drivers report wrong sizes or return EAGAIN on a second read.
// Trailing newlines are stripped.
Result<std::string> ReadAttribute(const std::string& path);

// A directory held open so that many small attributes in it are read with
// openat(2): resolving a long sysfs path (through the class/ symlinks) for
// every attribute was about half of a large host's scrape time. Read(name)
// behaves as ReadAttribute(path + "/" + name), errors naming that path; a
// directory that cannot be opened makes every Read fail the same way.
//
// With the OpenFileCache enabled (the exporter enables it) the directory and
// the attributes read from it stay open between scrapes and are re-read with
// pread(2); see open_file_cache.h for how staleness is ruled out.
class AttributeDir {
 public:
  explicit AttributeDir(std::string path);
  Result<std::string> Read(const std::string& name) const;
  // The whole file `name`, as ReadTable(path + "/" + name, cap) reads it.
  Result<std::string> ReadTable(const std::string& name, size_t cap) const;
  // The target of symlink `name`, as ReadLink(path + "/" + name) reads it.
  Result<std::string> ReadLink(const std::string& name) const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::shared_ptr<CachedDirectory> cached_;
  UniqueFd fd_;  // Without the cache.
  int open_errno_ = 0;
};

// Reads a whole table file (e.g. /proc/net/netstat) without trusting stat()'s
// size (procfs reports 0), looping until EOF. Files larger than `cap` fail.
constexpr size_t kDefaultTableCap = 16 * 1024 * 1024;
Result<std::string> ReadTable(const std::string& path, size_t cap = kDefaultTableCap);

// Names in a directory, sorted, without "." and "..".
Result<std::vector<std::string>> ListDirectory(const std::string& path);

// True when `path` is a mounted procfs (the host's /proc or a container's
// /host/proc), false for a plain directory such as a fixture tree. Sources
// that are not files (netlink) are live only over a live procfs, so a fixture
// tree never shows the machine running the tests.
bool IsProcfsMount(const std::string& path);

// What stat(2) says of a file: whether it is a regular file, its size and when it
// was last written. Follows symlinks.
struct FileInfo {
  bool regular = false;
  uint64_t size = 0;
  double modified_unix_seconds = 0;
};
Result<FileInfo> StatFile(const std::string& path);

// Resolves a symlink's target (sysfs uses them for device topology).
Result<std::string> ReadLink(const std::string& path);

}  // namespace fabric
