// The receive and segmentation offloads that set a host's receive cost:
// GRO, LRO, TSO and GSO on or off, as `ethtool -k` prints them (the kernel
// backend asks ethtool netlink, else ETHTOOL_GGRO/GLRO-flag/GTSO/GGSO). Pure.
#pragma once

#include <optional>
#include <string_view>

#include "common/result.h"

namespace fabric {

struct EthtoolFeatures {
  std::optional<bool> gro, lro, tso, gso;
};

// `ethtool -k IF` output without the recorded command line:
// "generic-receive-offload: on", "large-receive-offload: off [fixed]", ...
// Other features are skipped.
Result<EthtoolFeatures> ParseEthtoolFeaturesText(std::string_view text, std::string_view source);

// The attributes of an ETHTOOL_MSG_FEATURES_GET_REPLY (after the genetlink
// header) asked without ETHTOOL_FLAG_COMPACT_BITSETS: ETHTOOL_A_FEATURES_ACTIVE
// as a verbose bitset, each bit named ("rx-gro", "rx-lro",
// "tx-tcp-segmentation", "tx-generic-segmentation"), so no string set is
// needed and the kernel's internal bit numbers never matter. In the kernel's
// no-mask form only the bits that are on are listed: a known feature not
// listed is off. All empty without an ACTIVE bitset.
EthtoolFeatures ParseEthtoolFeaturesAttributes(std::string_view attributes);

}  // namespace fabric
