// Descriptor ring sizes as the kernel's ethtool netlink answers
// ETHTOOL_MSG_RINGS_GET: each ring's current size and the driver's maximum,
// the same EthtoolLimits `ethtool -g` text and the ETHTOOL_GRINGPARAM ioctl
// give. Pure.
#pragma once

#include <string_view>

#include "common/parse/ethtool_parse.h"

namespace fabric {

// The attributes of an ETHTOOL_MSG_RINGS_GET_REPLY (after the genetlink
// header). Rings the driver does not have (the kernel sends 0 for both
// bounds, or leaves them out) are left out, as `ethtool -g` prints n/a;
// kinds in the order rx, rx_mini, rx_jumbo, tx.
EthtoolLimits ParseEthtoolRingsAttributes(std::string_view attributes);

}  // namespace fabric
