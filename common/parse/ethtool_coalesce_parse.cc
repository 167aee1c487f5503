#include "common/parse/ethtool_coalesce_parse.h"

#include <linux/ethtool_netlink.h>

#include <string>

#include "common/parse/nlattr_walk.h"
#include "common/strings.h"

namespace fabric {
namespace {

std::string Where(std::string_view source, size_t line_index) {
  return std::string(source) + ":" + std::to_string(line_index + 1) + ": ";
}

std::optional<bool> OnOff(std::string_view v) {
  if (v == "on") return true;
  if (v == "off") return false;
  return std::nullopt;
}

}  // namespace

Result<EthtoolCoalesce> ParseEthtoolCoalesceText(std::string_view text, std::string_view source) {
  EthtoolCoalesce c;
  bool saw_header = false;
  auto lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = TrimSpace(lines[i]);
    if (line.empty()) continue;
    if (StartsWith(line, "Coalesce parameters for")) {
      saw_header = true;
      continue;
    }
    if (StartsWith(line, "CQE mode")) continue;  // "CQE mode RX: on  TX: off" (6.x).
    if (StartsWith(line, "Adaptive RX:")) {
      // "Adaptive RX: on  TX: off": two settings on one line; n/a where the
      // driver has no adaptive moderation.
      auto f = SplitFields(line);
      if (f.size() != 5 || f[3] != "TX:" || (!OnOff(f[2]) && f[2] != "n/a") ||
          (!OnOff(f[4]) && f[4] != "n/a")) {
        return MakeError(Where(source, i) + "expected \"Adaptive RX: on|off  TX: on|off\", got " +
                         Quote(lines[i]));
      }
      c.adaptive_rx = OnOff(f[2]);
      c.adaptive_tx = OnOff(f[4]);
      continue;
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      return MakeError(Where(source, i) + "expected \"name: value\", got " + Quote(lines[i]));
    }
    std::string_view key = TrimSpace(line.substr(0, colon));
    std::string_view value = TrimSpace(line.substr(colon + 1));
    std::optional<uint64_t>* target = key == "rx-usecs"    ? &c.rx_usecs
                                      : key == "rx-frames" ? &c.rx_frames
                                      : key == "tx-usecs"  ? &c.tx_usecs
                                      : key == "tx-frames" ? &c.tx_frames
                                                           : nullptr;
    if (target == nullptr || value == "n/a") continue;
    auto n = ParseUint64(value);
    if (!n) {
      return MakeError(Where(source, i) + Quote(key) +
                       " is not an unsigned integer: " + Quote(value));
    }
    *target = *n;
  }
  if (!saw_header) return MakeError(std::string(source) + ": no \"Coalesce parameters for\" line");
  return c;
}

EthtoolCoalesce ParseEthtoolCoalesceAttributes(std::string_view attributes) {
  EthtoolCoalesce c;
  WalkNlattrs(attributes, [&](uint16_t type, std::string_view payload) {
    switch (type) {
      case ETHTOOL_A_COALESCE_RX_USECS:
        if (auto v = NlattrValue<uint32_t>(payload)) c.rx_usecs = *v;
        break;
      case ETHTOOL_A_COALESCE_RX_MAX_FRAMES:
        if (auto v = NlattrValue<uint32_t>(payload)) c.rx_frames = *v;
        break;
      case ETHTOOL_A_COALESCE_TX_USECS:
        if (auto v = NlattrValue<uint32_t>(payload)) c.tx_usecs = *v;
        break;
      case ETHTOOL_A_COALESCE_TX_MAX_FRAMES:
        if (auto v = NlattrValue<uint32_t>(payload)) c.tx_frames = *v;
        break;
      case ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX:
        if (auto v = NlattrValue<uint8_t>(payload)) c.adaptive_rx = *v != 0;
        break;
      case ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX:
        if (auto v = NlattrValue<uint8_t>(payload)) c.adaptive_tx = *v != 0;
        break;
      default:
        break;
    }
  });
  return c;
}

}  // namespace fabric
