#include "common/parse/ethtool_parse.h"

#include <linux/ethtool_netlink.h>

#include "common/parse/nlattr_walk.h"
#include "common/strings.h"

namespace fabric {
namespace {

std::string Where(std::string_view source, size_t line_index) {
  return std::string(source) + ":" + std::to_string(line_index + 1) + ": ";
}

// Splits "Key:  value" at the first colon; false when there is none.
bool SplitKeyValue(std::string_view line, std::string_view& key, std::string_view& value) {
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return false;
  key = TrimSpace(line.substr(0, colon));
  value = TrimSpace(line.substr(colon + 1));
  return true;
}

std::optional<bool> OnOff(std::string_view v) {
  if (v == "on") return true;
  if (v == "off") return false;
  return std::nullopt;
}

}  // namespace

Result<RecordedCommand> ParseRecordedCommandLine(std::string_view first_line,
                                                 std::string_view source) {
  std::string_view line = TrimSpace(first_line);
  if (!line.empty() && (line[0] == '#' || line[0] == '$')) line = TrimSpace(line.substr(1));
  auto fields = SplitFields(line);
  if (fields.size() < 3 || fields[0] != "ethtool") {
    return MakeError(std::string(source) +
                     ":1: expected the recorded command, e.g. \"# ethtool -S eth0\", got " +
                     Quote(first_line));
  }
  std::optional<EthtoolCommand> command;
  for (size_t i = 1; i + 1 < fields.size(); ++i) {
    std::string_view f = fields[i];
    std::optional<EthtoolCommand> c;
    if (f == "-i" || f == "--driver") c = EthtoolCommand::kDriverInfo;
    if (f == "-S" || f == "--statistics") c = EthtoolCommand::kStats;
    if (f == "-a" || f == "--show-pause") c = EthtoolCommand::kPause;
    if (f == "-l" || f == "--show-channels") c = EthtoolCommand::kChannels;
    if (f == "-g" || f == "--show-ring") c = EthtoolCommand::kRings;
    if (f == "--show-fec") c = EthtoolCommand::kFec;
    if (f == "-c" || f == "--show-coalesce") c = EthtoolCommand::kCoalesce;
    if (f == "-k" || f == "--show-features" || f == "--show-offload") {
      c = EthtoolCommand::kFeatures;
    }
    if (!c) continue;
    if (command) {
      return MakeError(std::string(source) + ":1: more than one ethtool command in " +
                       Quote(first_line));
    }
    command = c;
  }
  if (!command) {
    return MakeError(std::string(source) + ":1: not a recorded ethtool command this reads " +
                     "(-i, -S, -a, -l, -g, --show-fec, -c, -k): " + Quote(first_line));
  }
  return RecordedCommand{*command, std::string(fields.back())};
}

Result<EthtoolDriverInfo> ParseEthtoolDriverInfo(std::string_view text, std::string_view source) {
  EthtoolDriverInfo info;
  auto lines = SplitLines(text);
  bool saw_driver = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (TrimSpace(lines[i]).empty()) continue;
    std::string_view key, value;
    if (!SplitKeyValue(lines[i], key, value)) {
      return MakeError(Where(source, i) + "expected \"key: value\", got " + Quote(lines[i]));
    }
    if (key == "driver") {
      info.driver = value;
      saw_driver = true;
    } else if (key == "version") {
      info.version = value;
    } else if (key == "firmware-version") {
      info.firmware_version = value;
    } else if (key == "bus-info") {
      info.bus_info = value;
    }
  }
  if (!saw_driver || info.driver.empty()) {
    return MakeError(std::string(source) + ": no \"driver:\" line");
  }
  return info;
}

Result<EthtoolStats> ParseEthtoolStats(std::string_view text, std::string_view source) {
  EthtoolStats stats;
  auto lines = SplitLines(text);
  stats.reserve(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = TrimSpace(lines[i]);
    if (line.empty()) continue;
    // Section headers: "NIC statistics:" and, with ethtool 6.x, per-queue
    // blocks some drivers add ("Queue statistics:" etc.); they end in ':'.
    if (line.back() == ':') continue;
    // Names may themselves contain ": " (bnxt's "[0]: rx_ucast_packets"), so
    // the value is after the last colon.
    size_t colon = line.rfind(':');
    if (colon == std::string_view::npos || colon == 0) {
      return MakeError(Where(source, i) + "expected \"name: value\", got " + Quote(lines[i]));
    }
    std::string_view name = TrimSpace(line.substr(0, colon));
    auto value = ParseUint64(TrimSpace(line.substr(colon + 1)));
    if (!value) {
      return MakeError(Where(source, i) + "statistic " + Quote(name) +
                       " has no unsigned integer value: " + Quote(lines[i]));
    }
    stats.emplace_back(std::string(name), *value);
  }
  return stats;
}

Result<EthtoolPause> ParseEthtoolPause(std::string_view text, std::string_view source) {
  EthtoolPause pause;
  auto lines = SplitLines(text);
  bool in_stats = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = TrimSpace(lines[i]);
    if (line.empty() || StartsWith(line, "Pause parameters for")) continue;
    if (line == "Statistics:") {
      in_stats = true;
      continue;
    }
    std::string_view key, value;
    if (!SplitKeyValue(line, key, value)) {
      return MakeError(Where(source, i) + "expected \"key: value\", got " + Quote(lines[i]));
    }
    if (in_stats) {
      auto n = ParseUint64(value);
      if (!n) {
        return MakeError(Where(source, i) + Quote(key) +
                         " is not an unsigned integer: " + Quote(value));
      }
      if (key == "tx_pause_frames") pause.tx_frames = *n;
      if (key == "rx_pause_frames") pause.rx_frames = *n;
      continue;
    }
    std::optional<bool>* target = nullptr;
    if (key == "Autonegotiate") target = &pause.autoneg;
    if (key == "RX") target = &pause.rx;
    if (key == "TX") target = &pause.tx;
    if (target == nullptr) continue;  // "RX negotiated" and future lines.
    *target = OnOff(value);
    if (!*target) {
      return MakeError(Where(source, i) + Quote(key) + " is neither on nor off: " + Quote(value));
    }
  }
  if (!pause.autoneg && !pause.rx && !pause.tx) {
    return MakeError(std::string(source) + ": no Autonegotiate/RX/TX lines");
  }
  return pause;
}

Result<EthtoolLimits> ParseEthtoolLimits(std::string_view text, std::string_view source) {
  EthtoolLimits limits;
  enum { kNone, kMax, kCurrent } section = kNone;
  auto lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = TrimSpace(lines[i]);
    if (line.empty() || StartsWith(line, "Channel parameters for") ||
        StartsWith(line, "Ring parameters for")) {
      continue;
    }
    if (line == "Pre-set maximums:") {
      section = kMax;
      continue;
    }
    if (line == "Current hardware settings:") {
      section = kCurrent;
      continue;
    }
    std::string_view key, value;
    if (!SplitKeyValue(line, key, value) || section == kNone) {
      return MakeError(Where(source, i) + "unexpected line " + Quote(lines[i]));
    }
    std::string kind;
    if (key == "RX") kind = "rx";
    if (key == "TX") kind = "tx";
    if (key == "Other") kind = "other";
    if (key == "Combined") kind = "combined";
    if (key == "RX Mini") kind = "rx_mini";
    if (key == "RX Jumbo") kind = "rx_jumbo";
    if (kind.empty() || value == "n/a") continue;  // Buffer sizes, TX push, ...
    auto n = ParseUint64(value);
    if (!n) {
      return MakeError(Where(source, i) + Quote(key) +
                       " is not an unsigned integer: " + Quote(value));
    }
    EthtoolLimit* entry = nullptr;
    for (auto& l : limits) {
      if (l.kind == kind) entry = &l;
    }
    if (entry == nullptr) entry = &limits.emplace_back(EthtoolLimit{kind, {}, {}});
    (section == kMax ? entry->max : entry->current) = *n;
  }
  if (section == kNone) {
    return MakeError(std::string(source) + ": no \"Pre-set maximums:\" section");
  }
  return limits;
}

EthtoolPause ParseEthtoolPauseAttributes(std::string_view attributes) {
  EthtoolPause pause;
  WalkNlattrs(attributes, [&](uint16_t type, std::string_view payload) {
    auto flag = [&](std::optional<bool>& out) {
      if (auto v = NlattrValue<uint8_t>(payload)) out = *v != 0;
    };
    switch (type) {
      case ETHTOOL_A_PAUSE_AUTONEG:
        flag(pause.autoneg);
        break;
      case ETHTOOL_A_PAUSE_RX:
        flag(pause.rx);
        break;
      case ETHTOOL_A_PAUSE_TX:
        flag(pause.tx);
        break;
      case ETHTOOL_A_PAUSE_STATS:
        // The kernel leaves out statistics the driver does not keep.
        WalkNlattrs(payload, [&](uint16_t stat, std::string_view value) {
          if (stat == ETHTOOL_A_PAUSE_STAT_TX_FRAMES)
            pause.tx_frames = NlattrValue<uint64_t>(value);
          if (stat == ETHTOOL_A_PAUSE_STAT_RX_FRAMES)
            pause.rx_frames = NlattrValue<uint64_t>(value);
        });
        break;
      default:
        break;
    }
  });
  return pause;
}

}  // namespace fabric
