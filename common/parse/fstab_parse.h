// Parser for fstab(5): what the operator asked a mount for. The kernel shows
// only what it negotiated (mountstats, /proc/mounts: an NFS-over-RDMA mount
// asked for rsize=4194304 shows rsize=1048576), so the nfs collector reads the
// request from here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/parse/mount_options.h"
#include "common/result.h"

namespace fabric {

struct FstabEntry {
  std::string source;       // fs_spec, octal escapes (\040) decoded.
  std::string mount_point;  // fs_file, decoded.
  std::string fstype;
  MountOptions options;
};

// Comments (#) and blank lines are skipped; a line with fewer than four fields
// is an error naming `source` and the line.
Result<std::vector<FstabEntry>> ParseFstab(std::string_view text, std::string_view source);

}  // namespace fabric
