// SysRoot: where procfs and sysfs are mounted. Every path the exporter reads
// is built here, so tests and containers can point --path.procfs and
// --path.sysfs at a fixture tree or a host mount; no other code names /proc or
// /sys.
#pragma once

#include <string>
#include <string_view>

namespace fabric {

class SysRoot {
 public:
  SysRoot();  // The host's own /proc and /sys.
  SysRoot(std::string procfs, std::string sysfs);

  // Joins a path relative to the procfs root, e.g. Proc("net/softnet_stat").
  std::string Proc(std::string_view relative) const;
  // Joins a path relative to the sysfs root, e.g. Sys("class/net").
  std::string Sys(std::string_view relative) const;

  const std::string& procfs() const { return procfs_; }
  const std::string& sysfs() const { return sysfs_; }

  static constexpr std::string_view kDefaultProcfs = "/proc";
  static constexpr std::string_view kDefaultSysfs = "/sys";

 private:
  std::string procfs_;
  std::string sysfs_;
};

}  // namespace fabric
