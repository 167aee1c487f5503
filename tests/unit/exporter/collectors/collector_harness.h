// Runs one collector over a fixture tree and returns its exposition text.
#pragma once

#include <prometheus/text_serializer.h>

#include <string>

#include "exporter/metrics/collector.h"

namespace fabric::testing {

inline const std::string kNicsTree = std::string(FABRIC_SOURCE_DIR) + "/tests/fixtures/nics";

struct Scrape {
  Status status;
  std::string text;
};

inline Scrape ScrapeWith(std::unique_ptr<Collector> (*factory)(const CollectorContext&),
                         const std::string& tree, const std::string& yaml = "{}") {
  SysRoot root(tree + "/proc", tree + "/sys");
  ConfigNode settings = ConfigNode::LoadString(yaml, "test.yml");
  auto collector = factory({root, settings});
  MetricSink sink;
  Status status = collector->Collect(sink);
  return {status, prometheus::TextSerializer().Serialize(sink.TakeSorted())};
}

inline bool Has(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

}  // namespace fabric::testing
