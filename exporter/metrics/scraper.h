// Scraper: the prometheus::Collectable behind /metrics. Each scrape runs every
// enabled collector into its own sink, times it, and emits
// fabric_scrape_collector_{success,duration_seconds}; a failing collector loses
// only its own samples. The output is sorted, so it is byte-stable.
#pragma once

#include <prometheus/collectable.h>

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/metrics/collector.h"

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

// The families of one scrape. Latest() keeps, between scrapes, only those its filter selects
// (the ladder page's): a large host's whole scrape held in memory was 1 MiB of its RSS.
struct ScrapeSnapshot {
  std::vector<prometheus::MetricFamily> families;  // Sorted by name.
  std::chrono::steady_clock::time_point taken;
};

using FamilyFilter = std::function<bool(std::string_view family)>;

// What Scraper::History() keeps: the families `filter` selects, from the scrapes of the last
// `span` (and the one just before it, so a rate can cover the whole span), at most
// Scraper::kHistoryPoints of them spread over the span however often Prometheus scrapes.
struct ScrapeHistorySettings {
  FamilyFilter filter;
  std::chrono::steady_clock::duration span{};
};

class Scraper : public prometheus::Collectable {
 public:
  using FamilyFilter = fabric::FamilyFilter;
  static constexpr size_t kHistoryPoints = 32;

  // `constant` holds series fixed for the process lifetime (build info).
  // `keep_latest` selects the families Latest() keeps; none without one.
  Scraper(std::vector<NamedCollector> collectors, MetricSink constant,
          FamilyFilter keep_latest = nullptr, ScrapeHistorySettings history = {});

  // Scrapes now; the result is also what Latest() returns until the next scrape.
  std::shared_ptr<const ScrapeSnapshot> Scrape() const;

  // Scrape()'s families, copied (prometheus::Collectable).
  std::vector<prometheus::MetricFamily> Collect() const override;

  std::vector<CollectorStatus> Statuses() const;

  // A config reload: the scrapes from now on run `collectors` and serve
  // `constant`. Waits for a scrape in progress; returns the collectors it
  // replaced, so whatever they read (the old probe runtime) can outlive them.
  std::vector<NamedCollector> Replace(std::vector<NamedCollector> collectors, MetricSink constant);
  // The constant series alone (a reload that failed changes only its status).
  void SetConstant(MetricSink constant);

  // The last scrape's families that `keep_latest` selects; nullptr before the first scrape.
  std::shared_ptr<const ScrapeSnapshot> Latest() const;

  // The kept scrapes of the history filter's families, oldest first, the last scrape last.
  std::vector<std::shared_ptr<const ScrapeSnapshot>> History() const;
  // A reload that changes the span: later scrapes keep this much.
  void SetHistorySpan(std::chrono::steady_clock::duration span);

 private:
  // Scrapes are serialised: collectors may keep state between scrapes, and
  // running two at once would only double the load on procfs.
  mutable std::mutex scrape_mutex_;
  std::vector<NamedCollector> collectors_;  // Guarded by scrape_mutex_, as is constant_.
  MetricSink constant_;
  const FamilyFilter keep_latest_;
  mutable std::mutex status_mutex_;
  mutable std::vector<CollectorStatus> statuses_;
  mutable std::shared_ptr<const ScrapeSnapshot> latest_;
  const FamilyFilter history_filter_;
  std::chrono::steady_clock::duration history_span_;                   // Guarded by status_mutex_,
  mutable std::deque<std::shared_ptr<const ScrapeSnapshot>> history_;  // as is this.
};

}  // namespace fabric
