// Types the NIC driver statistics (`ethtool -S` names) that diagnose fabric
// bottlenecks: pause frames, PHY discards and errors, buffer exhaustion,
// PCIe signal integrity, per-queue traffic. Drivers name the same counter
// differently and bake priority and queue numbers into the name; this table
// maps each known name to one metric with those numbers as labels, so series
// stay few and comparable across vendors. Pure: no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fabric {

struct TypedDriverStat {
  std::string_view metric;  // Full metric name, a counter ending in _total.
  std::string_view help;
  // Labels beyond `device`: fixed ones (direction, severity) and the number
  // taken from the name (priority or queue).
  std::vector<std::pair<std::string, std::string>> labels;
  double scale = 1;        // Multiplier to base units (microseconds -> seconds).
  bool per_queue = false;  // Only exported when per-queue statistics are enabled.
};

// The typed form of statistic `name` of `driver` (the name ETHTOOL_GDRVINFO
// reports, e.g. "mlx5_core", "ice", "i40e", "bnxt_en", "virtio_net", "veth"),
// or nullopt for a statistic the table does not know.
std::optional<TypedDriverStat> ClassifyDriverStat(std::string_view driver, std::string_view name);

}  // namespace fabric
