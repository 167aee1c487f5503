// Which process holds a socket: /proc/PID/fd/N links read "socket:[INODE]"
// for the sockets a process has open, and /proc/PID/comm names the process.
// The one reader of process fd tables. The flows collector asks for the
// inodes of bulk flows it cannot name by port, and of bulk flows received
// here (whose processes' run times it reads), so the /proc walk runs only
// while such a flow moves data, once per socket.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/read/sysroot.h"

namespace fabric {

// The inode a /proc/PID/fd link names when it is a socket ("socket:[1234]").
std::optional<uint64_t> SocketInodeOfLink(std::string_view link);

// The processes holding one socket.
struct SocketOwner {
  std::string comm;            // The first found's /proc/PID/comm (at most 15 characters).
  std::vector<uint32_t> pids;  // Every process holding it (a fork that kept it), at most
                               // kMaxSocketOwnerPids, in /proc's order.
};
inline constexpr size_t kMaxSocketOwnerPids = 8;

// The owners of each of `inodes`, where one is found. Processes that exit or
// deny access during the walk are skipped: a missing owner is "unknown",
// never an error.
std::map<uint64_t, SocketOwner> FindSocketOwners(const SysRoot& root,
                                                 const std::set<uint64_t>& inodes);

}  // namespace fabric
