// Failure isolation per device. A collector that reads many sources per
// device (an interface's ethtool statistics, a PCI function's attributes, an
// RDMA port's counters) records a broken source here instead of failing
// whole: that device's families from that source are left out, every other
// device's series stay. Each (device, source) failing in a scrape is one
// series of fabric_collector_device_errors, bounded by the collector's fixed
// list of sources, and one log line when it starts failing and one when it
// works again, so a source broken for days does not log every scrape.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "common/result.h"
#include "exporter/metrics/metric_sink.h"

namespace fabric {

class DeviceErrors {
 public:
  explicit DeviceErrors(std::string collector) : collector_(std::move(collector)) {}

  // Starts a scrape's record; failures of the last scrape stay known until
  // Emit compares them.
  void BeginScrape() { current_.clear(); }

  // `source` is one of the collector's fixed names ("ethtool_stats", ...).
  void Record(const std::string& device, std::string_view source, const Error& error);

  // True when `result` holds a value; else false, and a failure (not an
  // absence) is recorded.
  template <typename T>
  bool Check(const std::string& device, std::string_view source, const Result<T>& result) {
    if (result.ok()) return true;
    if (!result.absent()) Record(device, source, result.error());
    return false;
  }

  // Writes this scrape's failures and logs the sources that recovered.
  void Emit(MetricSink& sink);

  size_t failing() const { return current_.size(); }

 private:
  using Key = std::pair<std::string, std::string>;  // device, source
  std::string collector_;
  std::map<Key, std::string> current_;   // This scrape's failures, with the message.
  std::map<Key, std::string> previous_;  // The last scrape's.
};

}  // namespace fabric
