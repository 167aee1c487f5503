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

std::map<uint64_t, std::string> FindSocketOwners(const SysRoot& root,
                                                 const std::set<uint64_t>& inodes) {
  std::map<uint64_t, std::string> owners;
  if (inodes.empty()) return owners;
  auto pids = ListDirectory(root.procfs());
  if (!pids.ok()) return owners;
  for (const auto& pid : *pids) {
    if (!ParseUint64(pid)) continue;  // Not a process directory.
    const std::string fd_dir = root.Proc(pid + "/fd");
    auto fds = ListDirectory(fd_dir);
    if (!fds.ok()) continue;
    std::optional<std::string> comm;
    for (const auto& fd : *fds) {
      auto link = ReadLink(fd_dir + "/" + fd);
      if (!link.ok()) continue;
      auto inode = SocketInodeOfLink(*link);
      if (!inode || !inodes.contains(*inode) || owners.contains(*inode)) continue;
      if (!comm) {
        auto text = ReadAttribute(root.Proc(pid + "/comm"));
        if (!text.ok()) break;
        comm = std::string(TrimSpace(*text));
      }
      owners.emplace(*inode, *comm);
    }
    if (owners.size() == inodes.size()) break;
  }
  return owners;
}

}  // namespace fabric
