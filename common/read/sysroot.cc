#include "common/read/sysroot.h"

#include <utility>

namespace fabric {
namespace {

std::string StripTrailingSlashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

std::string Join(const std::string& root, std::string_view relative) {
  while (!relative.empty() && relative.front() == '/') relative.remove_prefix(1);
  std::string out = root;
  if (out.empty() || out.back() != '/') out += '/';
  out += relative;
  return out;
}

}  // namespace

SysRoot::SysRoot() : SysRoot(std::string(kDefaultProcfs), std::string(kDefaultSysfs)) {}

SysRoot::SysRoot(std::string procfs, std::string sysfs)
    : procfs_(StripTrailingSlashes(std::move(procfs))),
      sysfs_(StripTrailingSlashes(std::move(sysfs))) {}

std::string SysRoot::Proc(std::string_view relative) const { return Join(procfs_, relative); }
std::string SysRoot::Sys(std::string_view relative) const { return Join(sysfs_, relative); }

}  // namespace fabric
