#include "common/read/file_reader.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "common/unique_fd.h"

namespace fabric {
namespace {

Unexpected ErrnoError(const std::string& what, const std::string& path, int err) {
  std::string message = what + " " + path + ": " + std::strerror(err);
  return IsAbsentErrno(err) ? MakeAbsent(std::move(message)) : MakeError(std::move(message));
}

// A table ReadWhole read with `cap` as its limit, or the error that it is larger.
Result<std::string> WithinCap(std::string table, const std::string& path, size_t cap) {
  if (table.size() > cap) {
    return MakeError("read " + path + ": larger than " + std::to_string(cap) + " bytes");
  }
  return table;
}

Result<UniqueFd> OpenForRead(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) return ErrnoError("open", path, errno);
  return fd;
}

}  // namespace

bool IsAbsentErrno(int err) {
  switch (err) {
    case ENOENT:
    case ENOTDIR:
    case EACCES:
    case EPERM:
    case EOPNOTSUPP:
    case EINVAL:
    case ENODEV:
    case ENXIO:
      return true;
    default:
      return false;
  }
}

Result<std::string> ReadAttribute(const std::string& path) {
  auto fd = OpenForRead(path);
  if (!fd.ok()) return Unexpected{fd.error()};
  std::string value;
  if (int err = ReadAttributeAt0(fd->get(), value); err != 0) {
    return ErrnoError("read", path, err);
  }
  return value;
}

AttributeDir::AttributeDir(std::string path) : path_(std::move(path)) {
  cached_ = OpenFileCache::Global().Directory(path_, open_errno_);
  if (cached_ || open_errno_ != 0) return;
  fd_.Reset(::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd_.valid()) open_errno_ = errno;
}

Result<std::string> AttributeDir::Read(const std::string& name) const {
  std::string value;
  if (cached_) {
    const char* op = "read";
    if (int err = cached_->Read(name, value, op); err != 0) {
      return ErrnoError(op, path_ + "/" + name, err);
    }
    return value;
  }
  if (!fd_.valid()) return ErrnoError("open", path_ + "/" + name, open_errno_);
  UniqueFd fd(::openat(fd_.get(), name.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) return ErrnoError("open", path_ + "/" + name, errno);
  if (int err = ReadAttributeAt0(fd.get(), value); err != 0) {
    return ErrnoError("read", path_ + "/" + name, err);
  }
  return value;
}

Result<std::string> AttributeDir::ReadLink(const std::string& name) const {
  int dir_fd = cached_ ? cached_->fd() : fd_.get();
  if (dir_fd < 0) return ErrnoError("readlink", path_ + "/" + name, open_errno_);
  char buf[4096];
  ssize_t n = ::readlinkat(dir_fd, name.c_str(), buf, sizeof buf - 1);
  if (n < 0) return ErrnoError("readlink", path_ + "/" + name, errno);
  return std::string(buf, static_cast<size_t>(n));
}

Result<std::string> AttributeDir::ReadTable(const std::string& name, size_t cap) const {
  if (!cached_) return fabric::ReadTable(path_ + "/" + name, cap);
  std::string value;
  const char* op = "read";
  if (int err = cached_->Read(name, value, op, cap); err != 0) {
    return ErrnoError(op, path_ + "/" + name, err);
  }
  return WithinCap(std::move(value), path_ + "/" + name, cap);
}

Result<std::string> ReadTable(const std::string& path, size_t cap) {
  auto fd = OpenForRead(path);
  if (!fd.ok()) return Unexpected{fd.error()};
  std::string data;
  if (int err = ReadWhole(fd->get(), data, cap, false); err != 0) {
    return ErrnoError("read", path, err);
  }
  return WithinCap(std::move(data), path, cap);
}

Result<std::vector<std::string>> ListDirectory(const std::string& path) {
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(path.c_str()), &::closedir);
  if (!dir) return ErrnoError("opendir", path, errno);
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(dir.get())) {
    std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    names.emplace_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<FileInfo> StatFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return ErrnoError("stat", path, errno);
  FileInfo info;
  info.regular = S_ISREG(st.st_mode);
  info.size = static_cast<uint64_t>(st.st_size);
  info.modified_unix_seconds =
      static_cast<double>(st.st_mtim.tv_sec) + static_cast<double>(st.st_mtim.tv_nsec) * 1e-9;
  return info;
}

Result<std::string> ReadLink(const std::string& path) {
  char buf[4096];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
  if (n < 0) return ErrnoError("readlink", path, errno);
  return std::string(buf, static_cast<size_t>(n));
}

bool IsProcfsMount(const std::string& path) {
  struct statfs fs {};
  return ::statfs(path.c_str(), &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
}

}  // namespace fabric
