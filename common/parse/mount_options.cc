#include "common/parse/mount_options.h"

#include "common/strings.h"

namespace fabric {

std::string UnescapeOctal(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      auto code = ParseUint64(s.substr(i + 1, 3), 8);
      if (code && *code < 256) {
        out.push_back(static_cast<char>(*code));
        i += 3;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

MountOptions ParseMountOptions(std::string_view list) {
  MountOptions options;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view opt = list.substr(start, comma - start);
    if (!opt.empty()) {
      size_t eq = opt.find('=');
      if (eq == std::string_view::npos) {
        options.emplace_back(std::string(opt), "");
      } else {
        options.emplace_back(std::string(opt.substr(0, eq)), std::string(opt.substr(eq + 1)));
      }
    }
    start = comma + 1;
  }
  return options;
}

std::optional<std::string> FindMountOption(const MountOptions& options, std::string_view key) {
  std::optional<std::string> found;
  for (const auto& [k, v] : options) {
    if (k == key) found = v;
  }
  return found;
}

}  // namespace fabric
