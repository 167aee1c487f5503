// Which process holds a socket: /proc/PID/fd/N links read "socket:[INODE]"
// for the sockets a process has open, and /proc/PID/comm names the process.
// The one reader of process fd tables. The flows collector asks only for the
// inodes of bulk flows it cannot name by port, so the /proc walk runs only
// while such a flow moves data, once per socket.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "common/read/sysroot.h"

namespace fabric {

// The inode a /proc/PID/fd link names when it is a socket ("socket:[1234]").
std::optional<uint64_t> SocketInodeOfLink(std::string_view link);

// The comm (process name, at most 15 characters) of a process holding each of
// `inodes`, where one is found; a socket shared by several processes (a fork
// that kept it) gets the first found. Processes that exit or deny access
// during the walk are skipped: a missing owner is "unknown", never an error.
std::map<uint64_t, std::string> FindSocketOwners(const SysRoot& root,
                                                 const std::set<uint64_t>& inodes);

}  // namespace fabric
