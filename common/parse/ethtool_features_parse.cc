#include "common/parse/ethtool_features_parse.h"

#include <string>

#include "common/strings.h"

namespace fabric {

Result<EthtoolFeatures> ParseEthtoolFeaturesText(std::string_view text, std::string_view source) {
  EthtoolFeatures f;
  bool saw_header = false;
  auto lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = TrimSpace(lines[i]);
    if (line.empty()) continue;
    if (StartsWith(line, "Features for")) {
      saw_header = true;
      continue;
    }
    size_t colon = line.find(':');
    const std::string where = std::string(source) + ":" + std::to_string(i + 1) + ": ";
    if (colon == std::string_view::npos) {
      return MakeError(where + "expected \"feature: on|off\", got " + Quote(lines[i]));
    }
    std::string_view key = TrimSpace(line.substr(0, colon));
    std::optional<bool>* target = key == "generic-receive-offload"        ? &f.gro
                                  : key == "large-receive-offload"        ? &f.lro
                                  : key == "tcp-segmentation-offload"     ? &f.tso
                                  : key == "generic-segmentation-offload" ? &f.gso
                                                                          : nullptr;
    if (target == nullptr) continue;
    // "off [fixed]", "on [requested off]": the state is the first word.
    auto words = SplitFields(line.substr(colon + 1));
    if (words.empty() || (words[0] != "on" && words[0] != "off")) {
      return MakeError(where + Quote(key) + " is neither on nor off: " + Quote(lines[i]));
    }
    *target = words[0] == "on";
  }
  if (!saw_header) return MakeError(std::string(source) + ": no \"Features for\" line");
  return f;
}

}  // namespace fabric
