// The probe's footprint on disk: the directory it may work in, the files it
// creates there (removed by their destructor on every path out), and the
// checks that keep its numbers honest (no holes or unwritten extents under a
// read) and the host safe (no symlinks, no overwriting, a free-space reserve).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "active-probes/storage/storage_probe.h"
#include "common/result.h"
#include "common/unique_fd.h"

namespace fabric::storage {

class ProbeDir {
 public:
  // The directory itself may be reached through a symlink (e.g. /data ->
  // /mnt/nvme0); block devices and other non-directories are refused.
  static Result<ProbeDir> Open(const std::string& path);

  int fd() const { return fd_.get(); }
  const std::string& path() const { return path_; }
  dev_t device() const { return device_; }
  Result<uint64_t> AvailableBytes() const;

 private:
  UniqueFd fd_;
  std::string path_;
  dev_t device_ = 0;
};

class ProbeFile {
 public:
  ProbeFile() = default;
  ~ProbeFile();
  ProbeFile(ProbeFile&& other) noexcept;
  ProbeFile& operator=(ProbeFile&& other) noexcept;
  ProbeFile(const ProbeFile&) = delete;
  ProbeFile& operator=(const ProbeFile&) = delete;

  // Creates `name` (a plain name, no '/') with O_CREAT|O_EXCL|O_NOFOLLOW: an
  // existing file or symlink of that name is refused, never followed or
  // overwritten. The file is unlinked when this object dies.
  static Result<ProbeFile> Create(const ProbeDir& dir, const std::string& name);
  // Opens an existing regular file read-only without following a symlink; it
  // is never removed.
  static Result<ProbeFile> OpenExisting(const ProbeDir& dir, const std::string& name);
  // Opens a block device read-only (only ever named explicitly).
  static Result<ProbeFile> OpenDevice(const std::string& path);

  int fd() const { return fd_.get(); }
  const std::string& display_name() const { return display_; }
  uint64_t size() const { return size_; }  // At open time (device: its capacity).

  // Turns O_DIRECT on; an error says why the filesystem refused it.
  Status EnableDirect();
  // Unlinks now (the destructor does it otherwise).
  Status Remove();

 private:
  UniqueFd fd_;
  UniqueFd dir_fd_;  // A dup of the directory's, so removal never depends on it.
  std::string name_;
  std::string display_;
  uint64_t size_ = 0;
  bool created_ = false;
};

// Fails unless [0, size) of `fd` is backed by written extents: no holes, no
// unwritten (preallocated) or delayed-allocation extents, which a filesystem
// answers from metadata without touching the disk.
Status CheckFullyAllocated(int fd, uint64_t size, const std::string& display_name);

// The filesystem holding `dir`, from mountinfo under `procfs`.
FilesystemInfo LookupFilesystem(const ProbeDir& dir, const std::string& procfs);

}  // namespace fabric::storage
