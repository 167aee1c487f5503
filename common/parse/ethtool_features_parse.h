// The receive and segmentation offloads that set a host's receive cost:
// GRO, LRO, TSO and GSO on or off, as `ethtool -k` prints them (the kernel
// backend asks the same with ETHTOOL_GGRO/GLRO-flag/GTSO/GGSO). Pure.
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

}  // namespace fabric
