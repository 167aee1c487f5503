#include "common/parse/ethtool_fec_parse.h"

#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>

#include <cctype>

#include "common/parse/nlattr_walk.h"
#include "common/strings.h"

namespace fabric {
namespace {

std::string Where(std::string_view source, size_t line_index) {
  return std::string(source) + ":" + std::to_string(line_index + 1) + ": ";
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Parses " [ per_lane: a, b ]" into `lanes`.
bool ParsePerLane(std::string_view text, std::vector<uint64_t>& lanes) {
  text = TrimSpace(text);
  if (!StartsWith(text, "[") || text.back() != ']') return false;
  text = TrimSpace(text.substr(1, text.size() - 2));
  if (!StartsWith(text, "per_lane:")) return false;
  text.remove_prefix(9);
  while (!text.empty()) {
    size_t comma = text.find(',');
    auto v = ParseUint64(TrimSpace(text.substr(0, comma)));
    if (!v) return false;
    lanes.push_back(*v);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return true;
}

}  // namespace

std::string FecModeName(uint32_t bit) {
  switch (bit) {
    case ETHTOOL_LINK_MODE_FEC_NONE_BIT:
      return "off";  // ethtool prints it as Off: supported, not enabled.
    case ETHTOOL_LINK_MODE_FEC_RS_BIT:
      return "rs";
    case ETHTOOL_LINK_MODE_FEC_BASER_BIT:
      return "baser";
    case ETHTOOL_LINK_MODE_FEC_LLRS_BIT:
      return "llrs";
    default:
      return "other";
  }
}

Result<EthtoolFec> ParseEthtoolFecText(std::string_view text, std::string_view source) {
  EthtoolFec fec;
  bool saw_active = false;
  bool in_stats = false;
  EthtoolFecCounter* current = nullptr;  // The counter whose Lane lines follow.
  auto lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = TrimSpace(lines[i]);
    if (line.empty() || StartsWith(line, "FEC parameters for") ||
        StartsWith(line, "Supported/Configured FEC encodings:") ||
        StartsWith(line, "Configured FEC encodings:")) {
      continue;
    }
    if (StartsWith(line, "Active FEC encoding:")) {
      auto words = SplitFields(line.substr(20));
      if (words.empty()) return MakeError(Where(source, i) + "no active FEC encoding");
      fec.active = Lower(words.front());
      saw_active = true;
      continue;
    }
    if (line == "Statistics:") {
      in_stats = true;
      continue;
    }
    if (!in_stats) return MakeError(Where(source, i) + "unexpected line " + Quote(lines[i]));
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      return MakeError(Where(source, i) + "expected \"name: value\", got " + Quote(lines[i]));
    }
    std::string_view key = TrimSpace(line.substr(0, colon));
    std::string_view rest = TrimSpace(line.substr(colon + 1));
    if (StartsWith(key, "Lane ")) {
      auto lane = ParseUint64(key.substr(5));
      auto v = ParseUint64(rest);
      if (current == nullptr || !lane || !v || *lane != current->lanes.size() ||
          current->lanes.size() >= kMaxFecLanes) {
        return MakeError(Where(source, i) + "bad lane line " + Quote(lines[i]));
      }
      current->lanes.push_back(*v);
      continue;
    }
    if (StartsWith(key, "fec_symbols_err_") || StartsWith(key, "fec_bit_err_")) {
      current = nullptr;  // Histogram bins.
      continue;
    }
    EthtoolFecCounter* counter = key == "corrected_blocks"       ? &fec.corrected_blocks
                                 : key == "uncorrectable_blocks" ? &fec.uncorrectable_blocks
                                 : key == "corrected_bits"       ? &fec.corrected_bits
                                                                 : nullptr;
    if (counter == nullptr) {
      current = nullptr;  // A statistic a later ethtool added.
      continue;
    }
    size_t bracket = rest.find('[');
    auto total = ParseUint64(TrimSpace(rest.substr(0, bracket)));
    if (!total || counter->total) {
      return MakeError(Where(source, i) + Quote(key) +
                       " needs one unsigned integer: " + Quote(lines[i]));
    }
    counter->total = *total;
    if (bracket != std::string_view::npos && (!ParsePerLane(rest.substr(bracket), counter->lanes) ||
                                              counter->lanes.size() > kMaxFecLanes)) {
      return MakeError(Where(source, i) + "bad per-lane list " + Quote(lines[i]));
    }
    current = counter;
  }
  if (!saw_active) return MakeError(std::string(source) + ": no \"Active FEC encoding:\" line");
  return fec;
}

Result<EthtoolFec> ParseEthtoolFecAttributes(std::string_view attributes) {
  EthtoolFec fec;
  fec.active = "none";
  std::string error;
  WalkNlattrs(attributes, [&](uint16_t type, std::string_view payload) {
    if (type == ETHTOOL_A_FEC_ACTIVE) {
      if (auto bit = NlattrValue<uint32_t>(payload)) fec.active = *bit ? FecModeName(*bit) : "none";
      return;
    }
    if (type != ETHTOOL_A_FEC_STATS) return;
    WalkNlattrs(payload, [&](uint16_t stat, std::string_view values) {
      EthtoolFecCounter* counter = stat == ETHTOOL_A_FEC_STAT_CORRECTED ? &fec.corrected_blocks
                                   : stat == ETHTOOL_A_FEC_STAT_UNCORR  ? &fec.uncorrectable_blocks
                                   : stat == ETHTOOL_A_FEC_STAT_CORR_BITS ? &fec.corrected_bits
                                                                          : nullptr;
      if (counter == nullptr || values.empty()) return;  // Padding, histogram, empty.
      if (values.size() % 8 != 0 || values.size() / 8 > 1 + kMaxFecLanes) {
        error = "FEC statistic " + std::to_string(stat) + " is " + std::to_string(values.size()) +
                " bytes, not 1 to " + std::to_string(1 + kMaxFecLanes) + " u64 values";
        return;
      }
      counter->total = NlattrValue<uint64_t>(values);
      counter->lanes.clear();
      for (size_t off = 8; off < values.size(); off += 8) {
        counter->lanes.push_back(*NlattrValue<uint64_t>(values.substr(off)));
      }
    });
  });
  if (!error.empty()) return MakeError(error);
  return fec;
}

}  // namespace fabric
