// Which of an interface's driver statistics (ethtool -S) the netdev collector
// exports, and as what: the typed series of common/parse/driver_stats, the
// per-queue ones when enabled, and the untyped ones a regex selects. A driver
// reports the same names in the same order every time, so the choice is
// worked out once per interface and reused while the names stay the same:
// typing 400 names per NIC on every scrape was a third of the collector's
// time.
#pragma once

#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "common/parse/driver_stats.h"
#include "common/parse/ethtool_parse.h"
#include "exporter/metrics/metric_sink.h"

namespace fabric {

class DriverStatPlans {
 public:
  DriverStatPlans(bool queue_stats, std::optional<std::regex> include)
      : queue_stats_(queue_stats), include_(std::move(include)) {}

  // Writes `stats` of `ifname` (driver `driver`) into `sink`.
  void Emit(const std::string& ifname, const std::string& driver, const EthtoolStats& stats,
            MetricSink& sink);

  // Forgets the plans of interfaces not in `names` (sorted): containers churn
  // veths.
  void Retain(const std::vector<std::string>& names);

 private:
  struct Plan {
    struct Entry {
      size_t index;                          // Into the driver's report.
      std::optional<TypedDriverStat> typed;  // nullopt: untyped, driver_stats_include.
    };
    std::string driver;
    std::string names;  // Every reported name followed by '\0', in order.
    std::vector<Entry> entries;
    bool Matches(const std::string& drv, const EthtoolStats& stats) const;
  };
  Plan MakePlan(const std::string& driver, const EthtoolStats& stats) const;

  const bool queue_stats_;
  const std::optional<std::regex> include_;
  std::map<std::string, Plan> plans_;  // By interface.
};

}  // namespace fabric
