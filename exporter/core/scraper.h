// Scraper: the prometheus::Collectable behind /metrics. Each scrape runs every
// enabled collector into its own sink, times it, and emits
// fabric_scrape_collector_{success,duration_seconds}; a failing collector loses
// only its own samples. The output is sorted, so it is byte-stable.
#pragma once

#include <prometheus/collectable.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "exporter/core/collector.h"

namespace fabric {

struct NamedCollector {
  std::string name;
  std::unique_ptr<Collector> collector;
};

// What the landing page shows about one collector.
struct CollectorStatus {
  std::string name;
  bool scraped = false;  // False until the first scrape.
  bool success = false;
  double duration_seconds = 0;
  std::string error;  // Last failure message; empty when it succeeded.
  size_t samples = 0;
};

// The families one scrape returned, kept for readers that need the exporter's latest data
// without scraping again (the ladder page).
struct ScrapeSnapshot {
  std::vector<prometheus::MetricFamily> families;
  std::chrono::steady_clock::time_point taken;
};

class Scraper : public prometheus::Collectable {
 public:
  // `constant` holds series fixed for the process lifetime (build info).
  Scraper(std::vector<NamedCollector> collectors, MetricSink constant);

  std::vector<prometheus::MetricFamily> Collect() const override;

  std::vector<CollectorStatus> Statuses() const;

  // The last scrape's families; nullptr before the first scrape.
  std::shared_ptr<const ScrapeSnapshot> Latest() const;

 private:
  // Scrapes are serialised: collectors may keep state between scrapes, and
  // running two at once would only double the load on procfs.
  mutable std::mutex scrape_mutex_;
  std::vector<NamedCollector> collectors_;
  const MetricSink constant_;
  mutable std::mutex status_mutex_;
  mutable std::vector<CollectorStatus> statuses_;
  mutable std::shared_ptr<const ScrapeSnapshot> latest_;
};

}  // namespace fabric
