// Interrupt coalescing: how long (microseconds) and how many frames a NIC
// waits before it interrupts the host, per direction, and whether adaptive
// moderation (DIM) chooses those values itself; as the kernel's ethtool
// netlink answers ETHTOOL_MSG_COALESCE_GET and as `ethtool -c` prints it.
// Settings a driver does not support are absent ("n/a"). Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "common/result.h"

namespace fabric {

struct EthtoolCoalesce {
  std::optional<uint64_t> rx_usecs, rx_frames, tx_usecs, tx_frames;
  std::optional<bool> adaptive_rx, adaptive_tx;
  bool any() const {
    return rx_usecs || rx_frames || tx_usecs || tx_frames || adaptive_rx || adaptive_tx;
  }
};

// `ethtool -c IF` output without the recorded command line.
Result<EthtoolCoalesce> ParseEthtoolCoalesceText(std::string_view text, std::string_view source);

// The attributes of an ETHTOOL_MSG_COALESCE_GET_REPLY (after the genetlink
// header); the kernel leaves out what the driver does not support.
EthtoolCoalesce ParseEthtoolCoalesceAttributes(std::string_view attributes);

}  // namespace fabric
