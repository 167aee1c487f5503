#include "common/kernel/socket_owners.h"

#include "common/read/file_reader.h"
#include "common/strings.h"

namespace fabric {

std::optional<uint64_t> SocketInodeOfLink(std::string_view link) {
  constexpr std::string_view kPrefix = "socket:[";
  if (!link.starts_with(kPrefix) || !link.ends_with(']')) return std::nullopt;
  link.remove_prefix(kPrefix.size());
  link.remove_suffix(1);
  return ParseUint64(link);
}

std::map<uint64_t, SocketOwner> FindSocketOwners(const SysRoot& root,
                                                 const std::set<uint64_t>& inodes) {
  std::map<uint64_t, SocketOwner> owners;
  if (inodes.empty()) return owners;
  auto pids = ListDirectory(root.procfs());
  if (!pids.ok()) return owners;
  for (const auto& pid : *pids) {
    auto number = ParseUint64(pid);
    if (!number || *number > UINT32_MAX) continue;  // Not a process directory.
    const std::string fd_dir = root.Proc(pid + "/fd");
    auto fds = ListDirectory(fd_dir);
    if (!fds.ok()) continue;
    std::optional<std::string> comm;
    for (const auto& fd : *fds) {
      auto link = ReadLink(fd_dir + "/" + fd);
      if (!link.ok()) continue;
      auto inode = SocketInodeOfLink(*link);
      if (!inode || !inodes.contains(*inode)) continue;
      if (!comm) {
        auto text = ReadAttribute(root.Proc(pid + "/comm"));
        if (!text.ok()) break;
        comm = std::string(TrimSpace(*text));
      }
      SocketOwner& owner = owners[*inode];
      if (owner.pids.empty()) owner.comm = *comm;
      const auto holder = static_cast<uint32_t>(*number);
      // One process may hold the socket under several descriptors.
      if (owner.pids.size() < kMaxSocketOwnerPids &&
          (owner.pids.empty() || owner.pids.back() != holder)) {
        owner.pids.push_back(holder);
      }
    }
  }
  return owners;
}

}  // namespace fabric
