// What ethtool reports about one interface, and parsers for the text the
// ethtool(8) command prints, so recorded captures (`ethtool -i`, `-S`,
// `--include-statistics -a`, `-l`, `-g`; FEC, coalescing and features in
// their own files) can stand in for the kernel in fixture trees. The kernel
// backend fills the same structs from ioctl and ethtool netlink.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace fabric {

// ETHTOOL_GDRVINFO / `ethtool -i`.
struct EthtoolDriverInfo {
  std::string driver;
  std::string version;
  std::string firmware_version;
  std::string bus_info;  // PCI address for PCI devices ("0000:3b:00.0"), else empty.
};

// ETHTOOL_GSTRINGS + ETHTOOL_GSTATS / `ethtool -S`: name/value pairs in the
// driver's order.
using EthtoolStats = std::vector<std::pair<std::string, uint64_t>>;

// ETHTOOL_MSG_PAUSE_GET / `ethtool --include-statistics -a`. Fields the
// driver does not report stay empty.
struct EthtoolPause {
  std::optional<bool> autoneg;
  std::optional<bool> rx;
  std::optional<bool> tx;
  std::optional<uint64_t> tx_frames;  // IEEE 802.3 aPAUSEMACCtrlFramesTransmitted.
  std::optional<uint64_t> rx_frames;  // IEEE 802.3 aPAUSEMACCtrlFramesReceived.
};

// Channel counts (`ethtool -l`) or ring sizes (`ethtool -g`): one entry per
// kind ("rx", "tx", "other", "combined"; rings: "rx", "rx_mini", "rx_jumbo",
// "tx"), only where the driver reports a value.
struct EthtoolLimit {
  std::string kind;
  std::optional<uint64_t> max;
  std::optional<uint64_t> current;
};
using EthtoolLimits = std::vector<EthtoolLimit>;

// Which ethtool command a recorded capture holds, from its first line
// ("# ethtool -S ens1f0np0" or "$ ethtool ..."; FEC as
// "# ethtool --include-statistics --show-fec ens1f0np0").
enum class EthtoolCommand {
  kDriverInfo,
  kStats,
  kPause,
  kChannels,
  kRings,
  kFec,
  kCoalesce,
  kFeatures,
};
struct RecordedCommand {
  EthtoolCommand command;
  std::string interface;
};
Result<RecordedCommand> ParseRecordedCommandLine(std::string_view first_line,
                                                 std::string_view source);

// The attributes of an ETHTOOL_MSG_PAUSE_GET_REPLY (after the genetlink
// header), with the ETHTOOL_A_PAUSE_STATS nest when asked for statistics.
EthtoolPause ParseEthtoolPauseAttributes(std::string_view attributes);

// Each parser takes the command's output (without the recorded command line).
Result<EthtoolDriverInfo> ParseEthtoolDriverInfo(std::string_view text, std::string_view source);
Result<EthtoolStats> ParseEthtoolStats(std::string_view text, std::string_view source);
Result<EthtoolPause> ParseEthtoolPause(std::string_view text, std::string_view source);
Result<EthtoolLimits> ParseEthtoolLimits(std::string_view text, std::string_view source);

}  // namespace fabric
