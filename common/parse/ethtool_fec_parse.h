// Forward error correction: the active FEC mode and the FEC statistics
// (corrected and uncorrectable codewords, corrected bits; a total and, where
// the driver counts per lane, one value per lane), as the kernel's ethtool
// netlink answers ETHTOOL_MSG_FEC_GET with ETHTOOL_FLAG_STATS and as
// `ethtool --include-statistics --show-fec` prints them. Driver-neutral: the
// pre-FEC error rate of a port without reading its driver's names. Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace fabric {

struct EthtoolFecCounter {
  std::optional<uint64_t> total;
  std::vector<uint64_t> lanes;  // Lane 0 first; empty when counted for the port only.
};

struct EthtoolFec {
  // The active encoding: "off", "rs", "baser", "llrs", or "none" (no FEC
  // mode reported); empty when unknown.
  std::string active;
  EthtoolFecCounter corrected_blocks;
  EthtoolFecCounter uncorrectable_blocks;
  EthtoolFecCounter corrected_bits;
  bool has_statistics() const {
    return corrected_blocks.total || uncorrectable_blocks.total || corrected_bits.total;
  }
};

// The most lanes a port has (ETHTOOL_MAX_LANES); more in a reply is an error.
inline constexpr size_t kMaxFecLanes = 8;

// `ethtool --include-statistics --show-fec IF` output without the recorded
// command line: "Active FEC encoding: RS", then under "Statistics:" lines
// "  corrected_blocks: N" followed by "    Lane L: N" lines (ethtool 6.1) or
// " [ per_lane: a, b ]" on the same line (later ethtool). FEC histogram bins
// (fec_symbols_err_*, fec_bit_err_*) are skipped.
Result<EthtoolFec> ParseEthtoolFecText(std::string_view text, std::string_view source);

// The attributes of an ETHTOOL_MSG_FEC_GET_REPLY (after the genetlink
// header): ETHTOOL_A_FEC_ACTIVE and the ETHTOOL_A_FEC_STATS nest, whose
// counters are arrays of u64, total first, then one per lane.
Result<EthtoolFec> ParseEthtoolFecAttributes(std::string_view attributes);

// The name the text and this struct use for an ETHTOOL_LINK_MODE_FEC_*_BIT.
std::string FecModeName(uint32_t link_mode_bit);

}  // namespace fabric
