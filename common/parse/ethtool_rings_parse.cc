#include "common/parse/ethtool_rings_parse.h"

#include <linux/ethtool_netlink.h>

#include <optional>

#include "common/parse/nlattr_walk.h"

namespace fabric {

EthtoolLimits ParseEthtoolRingsAttributes(std::string_view attributes) {
  struct Ring {
    const char* kind;
    uint16_t max_attribute, current_attribute;
    std::optional<uint32_t> max, current;
  };
  Ring rings[] = {
      {"rx", ETHTOOL_A_RINGS_RX_MAX, ETHTOOL_A_RINGS_RX, {}, {}},
      {"rx_mini", ETHTOOL_A_RINGS_RX_MINI_MAX, ETHTOOL_A_RINGS_RX_MINI, {}, {}},
      {"rx_jumbo", ETHTOOL_A_RINGS_RX_JUMBO_MAX, ETHTOOL_A_RINGS_RX_JUMBO, {}, {}},
      {"tx", ETHTOOL_A_RINGS_TX_MAX, ETHTOOL_A_RINGS_TX, {}, {}},
  };
  WalkNlattrs(attributes, [&](uint16_t type, std::string_view payload) {
    for (Ring& r : rings) {
      if (type == r.max_attribute) r.max = NlattrValue<uint32_t>(payload);
      if (type == r.current_attribute) r.current = NlattrValue<uint32_t>(payload);
    }
  });
  EthtoolLimits limits;
  for (const Ring& r : rings) {
    // The kernel sends every ring's pair, 0 and 0 for a ring the driver lacks.
    if (r.max.value_or(0) == 0 && r.current.value_or(0) == 0) continue;
    EthtoolLimit l{r.kind, {}, {}};
    if (r.max.value_or(0) != 0) l.max = *r.max;
    if (r.current) l.current = *r.current;
    limits.push_back(l);
  }
  return limits;
}

}  // namespace fabric
