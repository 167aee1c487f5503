#include "exporter/metrics/scraper.h"

#include <exception>

#include "common/log.h"
#include "common/read/open_file_cache.h"

namespace fabric {

namespace {

// Each collector not yet scraped.
std::vector<CollectorStatus> Unscraped(const std::vector<NamedCollector>& collectors) {
  std::vector<CollectorStatus> statuses;
  for (const auto& c : collectors) {
    CollectorStatus status;
    status.name = c.name;
    statuses.push_back(std::move(status));
  }
  return statuses;
}

}  // namespace

Scraper::Scraper(std::vector<NamedCollector> collectors, MetricSink constant,
                 FamilyFilter keep_latest, ScrapeHistorySettings history)
    : collectors_(std::move(collectors)),
      constant_(std::move(constant)),
      keep_latest_(std::move(keep_latest)),
      statuses_(Unscraped(collectors_)),
      history_filter_(std::move(history.filter)),
      history_span_(history.span) {}

std::vector<NamedCollector> Scraper::Replace(std::vector<NamedCollector> collectors,
                                             MetricSink constant) {
  std::lock_guard<std::mutex> scrape_lock(scrape_mutex_);
  std::swap(collectors_, collectors);
  constant_ = std::move(constant);
  std::lock_guard<std::mutex> lock(status_mutex_);
  statuses_ = Unscraped(collectors_);
  return collectors;
}

void Scraper::SetConstant(MetricSink constant) {
  std::lock_guard<std::mutex> scrape_lock(scrape_mutex_);
  constant_ = std::move(constant);
}

std::vector<prometheus::MetricFamily> Scraper::Collect() const { return Scrape()->families; }

std::shared_ptr<const ScrapeSnapshot> Scraper::Scrape() const {
  std::lock_guard<std::mutex> scrape_lock(scrape_mutex_);
  MetricSink out = constant_;
  std::vector<CollectorStatus> statuses;
  for (const auto& [name, collector] : collectors_) {
    MetricSink own;
    auto start = std::chrono::steady_clock::now();
    Status status = OkStatus();
    try {
      status = collector->Collect(own);
    } catch (const std::exception& e) {
      // Nothing may throw across the web server's callback; a throwing
      // collector is a bug, reported like any other failure.
      status = MakeError(std::string("internal error: ") + e.what());
    }
    std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    CollectorStatus s{name, true, status.ok(), elapsed.count(), "", 0};
    if (status.ok()) {
      s.samples = own.sample_count();
      out.MergeFrom(std::move(own));
    } else {
      s.error = status.error().message;
      log::Warn("collector failed", {{"collector", name}, {"err", s.error}});
    }
    out.Gauge("fabric_scrape_collector_success",
              "1 if the collector read and parsed all its sources in this scrape, 0 if one was "
              "broken (its samples are then left out; the exporter log says why).",
              {{"collector", name}}, s.success ? 1 : 0);
    out.Gauge("fabric_scrape_collector_duration_seconds",
              "Wall time the collector took in this scrape.", {{"collector", name}},
              s.duration_seconds);
    statuses.push_back(std::move(s));
  }
  // Attribute files no collector read in the last two scrapes (an interface
  // that went away) are closed.
  OpenFileCache::Global().Sweep();
  auto snapshot = std::make_shared<const ScrapeSnapshot>(
      ScrapeSnapshot{out.TakeSorted(), std::chrono::steady_clock::now()});
  auto kept = std::make_shared<ScrapeSnapshot>();
  kept->taken = snapshot->taken;
  if (keep_latest_) {
    for (const auto& family : snapshot->families) {
      if (keep_latest_(family.name)) kept->families.push_back(family);
    }
  }
  std::shared_ptr<ScrapeSnapshot> recent;
  if (history_filter_) {
    recent = std::make_shared<ScrapeSnapshot>();
    recent->taken = snapshot->taken;
    for (const auto& family : snapshot->families) {
      if (history_filter_(family.name)) recent->families.push_back(family);
    }
  }
  std::lock_guard<std::mutex> lock(status_mutex_);
  statuses_ = std::move(statuses);
  latest_ = std::move(kept);
  if (recent) {
    // A scrape closer than span / kHistoryPoints to the one before the last replaces the last:
    // the newest scrape is always kept, and the points stay spread over the span.
    const auto spacing = history_span_ / static_cast<int>(kHistoryPoints);
    if (history_.size() >= 2 && recent->taken - history_[history_.size() - 2]->taken < spacing) {
      history_.back() = std::move(recent);
    } else {
      history_.push_back(std::move(recent));
    }
    const auto oldest = history_.back()->taken - history_span_;
    while (history_.size() >= 2 && history_[1]->taken <= oldest) history_.pop_front();
  }
  return snapshot;
}

std::vector<std::shared_ptr<const ScrapeSnapshot>> Scraper::History() const {
  std::lock_guard<std::mutex> lock(status_mutex_);
  return {history_.begin(), history_.end()};
}

void Scraper::SetHistorySpan(std::chrono::steady_clock::duration span) {
  std::lock_guard<std::mutex> lock(status_mutex_);
  history_span_ = span;
}

std::vector<CollectorStatus> Scraper::Statuses() const {
  std::lock_guard<std::mutex> lock(status_mutex_);
  return statuses_;
}

std::shared_ptr<const ScrapeSnapshot> Scraper::Latest() const {
  std::lock_guard<std::mutex> lock(status_mutex_);
  return latest_;
}

}  // namespace fabric
