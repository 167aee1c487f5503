// A recorded trace of one PCIe link's current speed and width, as the pcie
// collector's link sampler would have read them: the fixture form of what the
// sampler sees between scrapes (a captured tree has no live link to sample).
// One sample per line, "SECONDS SPEED_GTS WIDTH" (seconds since the first
// sample, non-decreasing; 0 GT/s or width 0: link down), '#' comments. Pure.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace fabric {

struct PcieLinkSample {
  double seconds = 0;
  std::optional<double> speed_gts;  // nullopt: unknown or link down
  std::optional<int> width;
};

Result<std::vector<PcieLinkSample>> ParsePcieLinkTrace(std::string_view text,
                                                       std::string_view source);

}  // namespace fabric
