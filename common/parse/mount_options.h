// Mount options as mount(8), fstab(5), /proc/mounts and mountstats write
// them: "rw,vers=4.2,rsize=1048576,hard". Shared by the mountstats and fstab
// parsers so the options asked for and those negotiated are read alike.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fabric {

// In order, each KEY=VALUE as (KEY, VALUE) and each flag as (FLAG, "").
using MountOptions = std::vector<std::pair<std::string, std::string>>;

MountOptions ParseMountOptions(std::string_view list);

// Decodes the kernel's octal escapes (\040 for a space; mangle() and
// seq_escape() write them in the mount points and sources of mountinfo,
// mountstats and fstab); anything else is kept as it is.
std::string UnescapeOctal(std::string_view s);

// The value of the last `key` (the one the kernel applies), nullopt when absent.
std::optional<std::string> FindMountOption(const MountOptions& options, std::string_view key);

}  // namespace fabric
