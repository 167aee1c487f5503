// The collector interface and the registry entry that describes one.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "common/read/sysroot.h"
#include "common/result.h"
#include "exporter/config/config_node.h"
#include "exporter/config/fleet.h"
#include "exporter/metrics/metric_sink.h"

namespace fabric {

// A passive collector: reads the host through the read layer, hands the bytes
// to a pure parser and maps the parsed structs to samples. Collect() returns
// an error when its source is broken; the scraper then drops whatever it
// wrote and reports success 0 for it alone. Hardware or files that this host
// does not have are not errors: success with no samples.
class Collector {
 public:
  virtual ~Collector() = default;
  virtual Status Collect(MetricSink& sink) = 0;
};

// What a collector is built from at start-up.
struct CollectorContext {
  const SysRoot& root;
  // The collector's own `collectors.NAME` section of the config file, or an
  // empty node. Factories validate it and throw ConfigError on bad keys.
  const ConfigNode& settings;
  // The fleet config, when there is one (the netdev collector's NIC roles).
  const Fleet* fleet = nullptr;
  // The TCP probe's port (probes.tcp.port: its responder's control and data
  // connections): the flows collector labels those flows as the probe's own,
  // so the transfers rung never counts the instrument as an application.
  uint16_t probe_port = 9878;
};

struct CollectorSpec {
  std::string_view name;
  bool enabled_by_default;
  std::string_view summary;  // One line, shown in --help and on the landing page.
  // Keys its `collectors.NAME` config section accepts besides `enabled`; the
  // registry rejects any other key before the factory runs.
  std::vector<std::string_view> setting_keys;
  std::function<std::unique_ptr<Collector>(const CollectorContext&)> factory;
  // Setting keys (string or boolean) that also get a command-line flag
  // --collector.NAME.KEY, underscores written as dashes; a flag given
  // replaces the config file's value.
  std::vector<std::string_view> flag_keys = {};
};

}  // namespace fabric
