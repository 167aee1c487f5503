// What the netdev collector reads from an interface's own sysfs directory:
// link attributes (mtu, speed, carrier and its transition counts, duplex,
// operstate) and the standard statistics/ counters. Each is read whole
// before anything is written, so a broken file leaves out that interface's
// family from that source and nothing else.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/read/file_reader.h"
#include "common/result.h"
#include "exporter/metrics/metric_sink.h"

namespace fabric {

struct NetdevLink {
  std::optional<int64_t> mtu, speed, carrier_changes, carrier, carrier_up, carrier_down;
  std::optional<std::string> duplex, operstate;
};

Result<NetdevLink> ReadNetdevLink(const AttributeDir& interface_dir);

// `dev` is {device}; `with_role` adds the interface's role (new families
// carry it, the older ones keep their labels).
void EmitNetdevLink(const NetdevLink& link, const LabelPairs& dev, const LabelPairs& with_role,
                    MetricSink& sink);

// statistics/ counters as (index into the collector's table, value).
using NetdevStatistics = std::vector<std::pair<size_t, int64_t>>;
Result<NetdevStatistics> ReadNetdevStatistics(const AttributeDir& interface_dir);
void EmitNetdevStatistics(const NetdevStatistics& statistics, const LabelPairs& dev,
                          MetricSink& sink);

}  // namespace fabric
