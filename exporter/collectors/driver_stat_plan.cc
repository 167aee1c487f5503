#include "exporter/collectors/driver_stat_plan.h"

#include <algorithm>
#include <set>
#include <utility>

namespace fabric {

bool DriverStatPlans::Plan::Matches(const std::string& drv, const EthtoolStats& stats) const {
  if (drv != driver) return false;
  size_t pos = 0;
  for (const auto& [name, value] : stats) {
    if (names.compare(pos, name.size(), name) != 0 || pos + name.size() >= names.size() ||
        names[pos + name.size()] != '\0') {
      return false;
    }
    pos += name.size() + 1;
  }
  return pos == names.size();
}

DriverStatPlans::Plan DriverStatPlans::MakePlan(const std::string& driver,
                                                const EthtoolStats& stats) const {
  Plan plan;
  plan.driver = driver;
  // A driver may list a name twice (mlx5 does for some per-priority
  // counters on some firmware); a series must appear once.
  std::set<std::pair<std::string, LabelPairs>> seen;
  for (size_t i = 0; i < stats.size(); ++i) {
    const std::string& name = stats[i].first;
    plan.names += name;
    plan.names += '\0';
    auto typed = ClassifyDriverStat(driver, name);
    if (typed) {
      if (typed->per_queue && !queue_stats_) continue;
      LabelPairs labels = typed->labels;
      if (!seen.emplace(std::string(typed->metric), labels).second) continue;
      plan.entries.push_back({i, std::move(typed)});
      continue;
    }
    if (!include_ || !std::regex_search(name, *include_)) continue;
    if (!seen.emplace("fabric_netdev_driver_statistic", LabelPairs{{"statistic", name}}).second) {
      continue;
    }
    plan.entries.push_back({i, std::nullopt});
  }
  return plan;
}

void DriverStatPlans::Emit(const std::string& ifname, const std::string& driver,
                           const EthtoolStats& stats, MetricSink& sink) {
  Plan& plan = plans_[ifname];
  if (!plan.Matches(driver, stats)) plan = MakePlan(driver, stats);
  for (const auto& entry : plan.entries) {
    const auto& [name, value] = stats[entry.index];
    if (entry.typed) {
      const TypedDriverStat& typed = *entry.typed;
      LabelPairs labels = {{"device", ifname}};
      labels.insert(labels.end(), typed.labels.begin(), typed.labels.end());
      sink.Counter(typed.metric, typed.help, std::move(labels),
                   static_cast<double>(value) * typed.scale);
      continue;
    }
    sink.Gauge("fabric_netdev_driver_statistic",
               "A driver statistic (ethtool -S) selected by collectors.netdev."
               "driver_stats_include, exported as the driver reports it: untyped, most are "
               "counters. Prefer the typed fabric_netdev_* series where one exists.",
               {{"device", ifname}, {"statistic", name}}, static_cast<double>(value));
  }
}

void DriverStatPlans::Retain(const std::vector<std::string>& names) {
  std::erase_if(plans_, [&](const auto& plan) {
    return !std::binary_search(names.begin(), names.end(), plan.first);
  });
}

}  // namespace fabric
