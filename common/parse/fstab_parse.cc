#include "common/parse/fstab_parse.h"

#include "common/strings.h"

namespace fabric {

Result<std::vector<FstabEntry>> ParseFstab(std::string_view text, std::string_view source) {
  std::vector<FstabEntry> entries;
  size_t line_number = 0;
  for (std::string_view line : SplitLines(text)) {
    ++line_number;
    size_t hash = line.find('#');
    if (hash != std::string_view::npos) line = line.substr(0, hash);
    auto fields = SplitFields(line);
    if (fields.empty()) continue;
    // fs_spec fs_file fs_vfstype fs_mntops [fs_freq [fs_passno]]
    if (fields.size() < 4 || fields.size() > 6) {
      return MakeError(std::string(source) + ":" + std::to_string(line_number) +
                       ": expected \"SOURCE MOUNTPOINT TYPE OPTIONS [FREQ [PASSNO]]\", got " +
                       Quote(line));
    }
    entries.push_back(FstabEntry{UnescapeOctal(fields[0]), UnescapeOctal(fields[1]),
                                 std::string(fields[2]), ParseMountOptions(fields[3])});
  }
  return entries;
}

}  // namespace fabric
