#include "common/parse/ethtool_features_parse.h"

#include <linux/ethtool_netlink.h>

#include <string>

#include "common/parse/nlattr_walk.h"
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

EthtoolFeatures ParseEthtoolFeaturesAttributes(std::string_view attributes) {
  EthtoolFeatures f;
  bool saw_active = false, no_mask = false;
  WalkNlattrs(attributes, [&](uint16_t type, std::string_view bitset) {
    if (type != ETHTOOL_A_FEATURES_ACTIVE) return;
    saw_active = true;
    // The form first: the bits' meaning depends on it, whatever the order.
    WalkNlattrs(bitset, [&](uint16_t attr, std::string_view) {
      no_mask = no_mask || attr == ETHTOOL_A_BITSET_NOMASK;
    });
    WalkNlattrs(bitset, [&](uint16_t attr, std::string_view bits) {
      if (attr != ETHTOOL_A_BITSET_BITS) return;
      WalkNlattrs(bits, [&](uint16_t kind, std::string_view bit) {
        if (kind != ETHTOOL_A_BITSET_BITS_BIT) return;
        std::string_view name;
        bool value = false;
        WalkNlattrs(bit, [&](uint16_t field, std::string_view payload) {
          if (field == ETHTOOL_A_BITSET_BIT_NAME) {
            // NUL-terminated string attribute.
            name = payload.substr(0, payload.find('\0'));
          }
          if (field == ETHTOOL_A_BITSET_BIT_VALUE) value = true;
        });
        std::optional<bool>* target = name == "rx-gro"                    ? &f.gro
                                      : name == "rx-lro"                  ? &f.lro
                                      : name == "tx-tcp-segmentation"     ? &f.tso
                                      : name == "tx-generic-segmentation" ? &f.gso
                                                                          : nullptr;
        // In the no-mask form a listed bit is on; with a mask, VALUE says.
        if (target != nullptr) *target = value || no_mask;
      });
    });
  });
  if (saw_active && no_mask) {
    for (auto* known : {&f.gro, &f.lro, &f.tso, &f.gso}) {
      if (!*known) *known = false;
    }
  }
  return f;
}

}  // namespace fabric
