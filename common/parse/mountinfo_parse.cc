#include "common/parse/mountinfo_parse.h"

#include "common/parse/mount_options.h"
#include "common/strings.h"

namespace fabric {
namespace {

bool IsUnder(std::string_view path, std::string_view mount_point) {
  if (mount_point == "/") return StartsWith(path, "/");
  if (!StartsWith(path, mount_point)) return false;
  return path.size() == mount_point.size() || path[mount_point.size()] == '/';
}

}  // namespace

Result<std::vector<MountInfo>> ParseMountInfo(std::string_view text, std::string_view source) {
  std::vector<MountInfo> mounts;
  size_t line_number = 0;
  for (std::string_view line : SplitLines(text)) {
    ++line_number;
    auto fields = SplitFields(line);
    if (fields.empty()) continue;
    auto fail = [&](std::string_view why) {
      return MakeError(std::string(source) + ":" + std::to_string(line_number) + ": " +
                       std::string(why));
    };
    // id parent major:minor root mount_point options [optional...] - fstype source super
    size_t separator = 0;
    for (size_t i = 6; i < fields.size(); ++i) {
      if (fields[i] == "-") {
        separator = i;
        break;
      }
    }
    if (fields.size() < 7 || separator == 0 || fields.size() < separator + 3) {
      return fail("expected \"ID PARENT MAJ:MIN ROOT MOUNT OPTIONS ... - TYPE SOURCE OPTIONS\"");
    }
    auto colon = fields[2].find(':');
    auto major = ParseUint64(fields[2].substr(0, colon));
    auto minor =
        colon == std::string_view::npos ? std::nullopt : ParseUint64(fields[2].substr(colon + 1));
    if (!major || !minor || *major > UINT32_MAX || *minor > UINT32_MAX) {
      return fail("bad device number " + Quote(fields[2]));
    }
    MountInfo m;
    m.major = static_cast<uint32_t>(*major);
    m.minor = static_cast<uint32_t>(*minor);
    m.root = UnescapeOctal(fields[3]);
    m.mount_point = UnescapeOctal(fields[4]);
    m.mount_options = std::string(fields[5]);
    m.fstype = std::string(fields[separator + 1]);
    m.source = UnescapeOctal(fields[separator + 2]);
    if (fields.size() > separator + 3) m.super_options = std::string(fields[separator + 3]);
    mounts.push_back(std::move(m));
  }
  return mounts;
}

const MountInfo* FindMount(const std::vector<MountInfo>& mounts, uint32_t major, uint32_t minor,
                           std::string_view path) {
  const MountInfo* best = nullptr;
  for (bool match_device : {true, false}) {
    for (const auto& m : mounts) {
      if (match_device && (m.major != major || m.minor != minor)) continue;
      if (!IsUnder(path, m.mount_point)) continue;
      // Later lines are mounted on top of earlier ones at the same point.
      if (best == nullptr || m.mount_point.size() >= best->mount_point.size()) best = &m;
    }
    if (best != nullptr) return best;
  }
  return nullptr;
}

}  // namespace fabric
