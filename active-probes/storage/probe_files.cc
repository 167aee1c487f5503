#include "active-probes/storage/probe_files.h"

#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "active-probes/storage/errno_code.h"
#include "common/parse/mountinfo_parse.h"
#include "common/read/file_reader.h"

namespace fabric::storage {
namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

Status CheckPlainName(const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
    return MakeError("file name \"" + name + "\" must be a plain name inside the directory");
  }
  return OkStatus();
}

}  // namespace

Result<ProbeDir> ProbeDir::Open(const std::string& path) {
  if (path.empty()) return MakeError("no directory given (--path)");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return MakeError(path + ": " + ErrnoText(errno));
  if (S_ISBLK(st.st_mode)) {
    return MakeError(path +
                     " is a block device; the probe works in a directory (name a device "
                     "to read with --device)");
  }
  if (!S_ISDIR(st.st_mode)) return MakeError(path + " is not a directory");
  ProbeDir dir;
  dir.fd_.Reset(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.fd_.valid()) return MakeError(path + ": " + ErrnoText(errno));
  if (::fstat(dir.fd_.get(), &st) != 0) return MakeError(path + ": " + ErrnoText(errno));
  dir.device_ = st.st_dev;
  char* real = ::realpath(path.c_str(), nullptr);
  dir.path_ = real != nullptr ? real : path;
  ::free(real);
  return dir;
}

Result<uint64_t> ProbeDir::AvailableBytes() const {
  struct statvfs vfs {};
  if (::fstatvfs(fd_.get(), &vfs) != 0) return MakeError(path_ + ": statvfs: " + ErrnoText(errno));
  return static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
}

ProbeFile::~ProbeFile() { (void)Remove(); }

ProbeFile::ProbeFile(ProbeFile&& other) noexcept
    : fd_(std::move(other.fd_)),
      dir_fd_(std::move(other.dir_fd_)),
      name_(std::move(other.name_)),
      display_(std::move(other.display_)),
      size_(other.size_),
      created_(std::exchange(other.created_, false)) {}

ProbeFile& ProbeFile::operator=(ProbeFile&& other) noexcept {
  if (this != &other) {
    (void)Remove();
    fd_ = std::move(other.fd_);
    dir_fd_ = std::move(other.dir_fd_);
    name_ = std::move(other.name_);
    display_ = std::move(other.display_);
    size_ = other.size_;
    created_ = std::exchange(other.created_, false);
  }
  return *this;
}

Result<ProbeFile> ProbeFile::Create(const ProbeDir& dir, const std::string& name) {
  FABRIC_RETURN_IF_ERROR(CheckPlainName(name));
  ProbeFile file;
  file.display_ = dir.path() + "/" + name;
  // O_DIRECT is turned on afterwards with fcntl: an open() that fails with
  // EINVAL for O_DIRECT can already have created the file.
  int fd =
      ::openat(dir.fd(), name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    int err = errno;
    if (err == EEXIST) {
      return MakeError(file.display_ +
                       " already exists (a probe is running there, or a killed one left it, or "
                       "it is a symlink); refusing to touch it: remove it and retry");
    }
    return MakeError(CodeOfErrno(err), file.display_ + ": create: " + ErrnoText(err));
  }
  file.fd_.Reset(fd);
  file.dir_fd_.Reset(::fcntl(dir.fd(), F_DUPFD_CLOEXEC, 0));
  file.name_ = name;
  file.created_ = true;
  if (!file.dir_fd_.valid()) return MakeError(file.display_ + ": dup: " + ErrnoText(errno));
  return file;
}

Result<ProbeFile> ProbeFile::OpenExisting(const ProbeDir& dir, const std::string& name) {
  FABRIC_RETURN_IF_ERROR(CheckPlainName(name));
  ProbeFile file;
  file.display_ = dir.path() + "/" + name;
  int fd = ::openat(dir.fd(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    int err = errno;
    if (err == ELOOP) return MakeError(file.display_ + " is a symlink; refusing to follow it");
    return MakeError(file.display_ + ": " + ErrnoText(err));
  }
  file.fd_.Reset(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0) return MakeError(file.display_ + ": " + ErrnoText(errno));
  if (!S_ISREG(st.st_mode)) return MakeError(file.display_ + " is not a regular file");
  if (::fcntl(fd, F_SETFL, 0) != 0) return MakeError(file.display_ + ": " + ErrnoText(errno));
  file.size_ = static_cast<uint64_t>(st.st_size);
  return file;
}

Result<ProbeFile> ProbeFile::OpenDevice(const std::string& path) {
  ProbeFile file;
  file.display_ = path;
  file.fd_.Reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!file.fd_.valid()) return MakeError(path + ": " + ErrnoText(errno));
  struct stat st {};
  if (::fstat(file.fd(), &st) != 0) return MakeError(path + ": " + ErrnoText(errno));
  if (!S_ISBLK(st.st_mode)) return MakeError(path + " is not a block device (--device)");
  uint64_t bytes = 0;
  if (::ioctl(file.fd(), BLKGETSIZE64, &bytes) != 0) {
    return MakeError(path + ": BLKGETSIZE64: " + ErrnoText(errno));
  }
  file.size_ = bytes;
  return file;
}

Status ProbeFile::EnableDirect() {
  int flags = ::fcntl(fd_.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd_.get(), F_SETFL, flags | O_DIRECT) != 0) {
    return MakeError("O_DIRECT not supported on " + display_ + " (" + ErrnoText(errno) + ")");
  }
  return OkStatus();
}

Status ProbeFile::Remove() {
  if (!created_) return OkStatus();
  created_ = false;
  fd_.Reset();
  if (::unlinkat(dir_fd_.get(), name_.c_str(), 0) != 0 && errno != ENOENT) {
    return MakeError(display_ + ": unlink: " + ErrnoText(errno));
  }
  return OkStatus();
}

Status CheckFullyAllocated(int fd, uint64_t size, const std::string& display_name) {
  constexpr size_t kBatch = 256;
  std::vector<uint8_t> storage(sizeof(fiemap) + kBatch * sizeof(fiemap_extent));
  auto* map = reinterpret_cast<fiemap*>(storage.data());
  uint64_t covered = 0;  // [0, covered) is known to be written data.
  while (covered < size) {
    std::memset(storage.data(), 0, storage.size());
    map->fm_start = covered;
    map->fm_length = size - covered;
    map->fm_flags = FIEMAP_FLAG_SYNC;
    map->fm_extent_count = kBatch;
    if (::ioctl(fd, FS_IOC_FIEMAP, map) != 0) {
      if (errno != EOPNOTSUPP && errno != ENOTTY) {
        return MakeError(display_name + ": FIEMAP: " + ErrnoText(errno));
      }
      // No extent map (e.g. tmpfs): holes are still visible to SEEK_HOLE.
      off_t data = ::lseek(fd, static_cast<off_t>(covered), SEEK_DATA);
      off_t hole = ::lseek(fd, static_cast<off_t>(covered), SEEK_HOLE);
      if (data != static_cast<off_t>(covered) || hole < static_cast<off_t>(size)) {
        return MakeError(display_name + " has a hole near offset " + std::to_string(covered) +
                         "; refusing to read a sparse file");
      }
      return OkStatus();
    }
    if (map->fm_mapped_extents == 0) break;
    for (uint32_t i = 0; i < map->fm_mapped_extents; ++i) {
      const fiemap_extent& e = map->fm_extents[i];
      if (e.fe_logical > covered) {
        return MakeError(display_name + " has a hole at offset " + std::to_string(covered) +
                         "; refusing to read a sparse file");
      }
      if (e.fe_flags & (FIEMAP_EXTENT_UNWRITTEN | FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNKNOWN)) {
        return MakeError(display_name + " has an unwritten or unallocated extent at offset " +
                         std::to_string(e.fe_logical) +
                         "; reads there would not touch the disk, refusing");
      }
      covered = std::max<uint64_t>(covered, e.fe_logical + e.fe_length);
      if (e.fe_flags & FIEMAP_EXTENT_LAST) break;
    }
    if (map->fm_extents[map->fm_mapped_extents - 1].fe_flags & FIEMAP_EXTENT_LAST) break;
  }
  if (covered < size) {
    return MakeError(display_name + " has a hole at offset " + std::to_string(covered) +
                     "; refusing to read a sparse file");
  }
  return OkStatus();
}

FilesystemInfo LookupFilesystem(const ProbeDir& dir, const std::string& procfs) {
  FilesystemInfo info;
  std::string source = procfs + "/self/mountinfo";
  auto text = ReadTable(source);
  if (!text.ok()) return info;
  auto mounts = ParseMountInfo(*text, source);
  if (!mounts.ok()) return info;
  const MountInfo* m = FindMount(*mounts, major(dir.device()), minor(dir.device()), dir.path());
  if (m == nullptr) return info;
  info.type = m->fstype;
  info.source = m->source;
  info.mount_point = m->mount_point;
  info.options = m->mount_options;
  if (!m->super_options.empty()) info.options += "," + m->super_options;
  return info;
}

}  // namespace fabric::storage
