// The read layer: the only code in the exporter that opens files. Parsers get
// the bytes; collectors never touch the filesystem directly.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/result.h"

namespace fabric {

// True for the errno values that mean "this attribute does not exist on this
// kernel or driver" rather than a failure: the one place that decides it.
bool IsAbsentErrno(int err);

// Reads a small sysfs/procfs attribute with a single read(2) into a 4 KiB
// buffer: some drivers report wrong sizes or return EAGAIN on a second read.
// Trailing newlines are stripped.
Result<std::string> ReadAttribute(const std::string& path);

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

// Resolves a symlink's target (sysfs uses them for device topology).
Result<std::string> ReadLink(const std::string& path);

}  // namespace fabric
