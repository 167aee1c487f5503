// Parser for /proc/<pid>/mountinfo (proc(5)): which filesystem, source and
// options a path lives on. The storage probe labels its results with it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace fabric {

struct MountInfo {
  uint32_t major = 0;
  uint32_t minor = 0;
  std::string root;         // Root of the mount within its filesystem.
  std::string mount_point;  // Octal escapes (\040) decoded.
  std::string mount_options;
  std::string fstype;
  std::string source;
  std::string super_options;
};

// `source` names the file in errors ("FILE:LINE: ...").
Result<std::vector<MountInfo>> ParseMountInfo(std::string_view text, std::string_view source);

// The mount holding `path` (an absolute, resolved path) on device
// major:minor: the longest matching mount point among that device's mounts,
// or among all mounts when the device matches none (e.g. btrfs subvolumes).
// nullptr when nothing matches.
const MountInfo* FindMount(const std::vector<MountInfo>& mounts, uint32_t major, uint32_t minor,
                           std::string_view path);

}  // namespace fabric
