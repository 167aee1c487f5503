#include "exporter/metrics/scraper.h"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

namespace fabric {
namespace {

class FakeCollector : public Collector {
 public:
  explicit FakeCollector(Status result, bool throws = false)
      : result_(std::move(result)), throws_(throws) {}
  Status Collect(MetricSink& sink) override {
    sink.Gauge("fake_value", "h", {}, 1);
    if (throws_) throw std::runtime_error("boom");
    return result_;
  }

 private:
  Status result_;
  bool throws_;
};

TEST(ScraperTest, FailingCollectorLosesOnlyItsOwnSamples) {
  std::vector<NamedCollector> collectors;
  collectors.push_back({"good", std::make_unique<FakeCollector>(OkStatus())});
  collectors.push_back({"bad", std::make_unique<FakeCollector>(MakeError("line 3: garbage"))});
  collectors.push_back({"throws", std::make_unique<FakeCollector>(OkStatus(), true)});
  Scraper scraper(std::move(collectors), MetricSink());
  std::string text = prometheus::TextSerializer().Serialize(scraper.Collect());
  EXPECT_NE(text.find("fabric_scrape_collector_success{collector=\"good\"} 1"), std::string::npos);
  EXPECT_NE(text.find("fabric_scrape_collector_success{collector=\"bad\"} 0"), std::string::npos);
  EXPECT_NE(text.find("fabric_scrape_collector_success{collector=\"throws\"} 0"),
            std::string::npos);
  // Only the good collector's sample survives.
  EXPECT_NE(text.find("fake_value 1"), std::string::npos);
  EXPECT_EQ(text.find("fake_value 1"), text.rfind("fake_value 1"));
  auto statuses = scraper.Statuses();
  ASSERT_EQ(statuses.size(), 3u);
  EXPECT_TRUE(statuses[0].success);
  EXPECT_EQ(statuses[1].error, "line 3: garbage");
  EXPECT_EQ(statuses[2].error, "internal error: boom");
}

// A config reload: the next scrape runs the new collectors and serves the new constant series;
// the old collectors come back to their owner, and the statuses start over.
TEST(ScraperTest, ReplaceSwapsCollectorsAndConstantSeries) {
  std::vector<NamedCollector> collectors;
  collectors.push_back({"old", std::make_unique<FakeCollector>(OkStatus())});
  MetricSink before;
  before.Gauge("fabric_constant", "h", {{"config", "a"}}, 1);
  Scraper scraper(std::move(collectors), std::move(before));
  (void)scraper.Scrape();
  std::vector<NamedCollector> next;
  next.push_back({"new", std::make_unique<FakeCollector>(MakeError("broken"))});
  next.push_back({"other", std::make_unique<FakeCollector>(OkStatus())});
  MetricSink after;
  after.Gauge("fabric_constant", "h", {{"config", "b"}}, 1);
  auto replaced = scraper.Replace(std::move(next), std::move(after));
  ASSERT_EQ(replaced.size(), 1u);
  EXPECT_EQ(replaced[0].name, "old");
  auto statuses = scraper.Statuses();
  ASSERT_EQ(statuses.size(), 2u);
  EXPECT_FALSE(statuses[0].scraped);
  std::string text = prometheus::TextSerializer().Serialize(scraper.Collect());
  EXPECT_NE(text.find("fabric_constant{config=\"b\"} 1"), std::string::npos) << text;
  EXPECT_EQ(text.find("config=\"a\""), std::string::npos) << text;
  EXPECT_EQ(text.find("collector=\"old\""), std::string::npos) << text;
  EXPECT_NE(text.find("fabric_scrape_collector_success{collector=\"new\"} 0"), std::string::npos);
  // A failed reload changes only the constant series.
  MetricSink failed;
  failed.Gauge("fabric_constant", "h", {{"config", "b"}}, 0);
  scraper.SetConstant(std::move(failed));
  text = prometheus::TextSerializer().Serialize(scraper.Collect());
  EXPECT_NE(text.find("fabric_constant{config=\"b\"} 0"), std::string::npos) << text;
  EXPECT_NE(text.find("collector=\"other\""), std::string::npos) << text;
}

TEST(ScraperTest, StatusesBeforeFirstScrape) {
  std::vector<NamedCollector> collectors;
  collectors.push_back({"good", std::make_unique<FakeCollector>(OkStatus())});
  Scraper scraper(std::move(collectors), MetricSink());
  auto statuses = scraper.Statuses();
  ASSERT_EQ(statuses.size(), 1u);
  EXPECT_FALSE(statuses[0].scraped);
}

// Between scrapes only the families the filter selects stay in memory (the
// ladder page's); the scrape itself returns everything.
TEST(ScraperTest, LatestKeepsOnlyTheSelectedFamilies) {
  std::vector<NamedCollector> collectors;
  collectors.push_back({"good", std::make_unique<FakeCollector>(OkStatus())});
  Scraper scraper(std::move(collectors), MetricSink(),
                  [](std::string_view name) { return name == "fake_value"; });
  EXPECT_EQ(scraper.Latest(), nullptr);
  auto scraped = scraper.Scrape();
  EXPECT_GT(scraped->families.size(), 1u);  // The value and the collector's own series.
  auto latest = scraper.Latest();
  ASSERT_NE(latest, nullptr);
  ASSERT_EQ(latest->families.size(), 1u);
  EXPECT_EQ(latest->families[0].name, "fake_value");
  EXPECT_EQ(latest->taken, scraped->taken);

  Scraper keeps_nothing({}, MetricSink());
  keeps_nothing.Scrape();
  ASSERT_NE(keeps_nothing.Latest(), nullptr);
  EXPECT_TRUE(keeps_nothing.Latest()->families.empty());
}

// History() keeps the selected families of recent scrapes for rates over a window (the
// ladder page's transfers): the newest always, at most kHistoryPoints spread over the span, so
// a scrape every second over five minutes does not keep three hundred.
TEST(ScraperTest, HistoryKeepsTheSelectedFamiliesSpreadOverItsSpan) {
  std::vector<NamedCollector> collectors;
  collectors.push_back({"fake", std::make_unique<FakeCollector>(OkStatus())});
  Scraper scraper(
      std::move(collectors), MetricSink(), nullptr,
      {[](std::string_view name) { return name == "fake_value"; }, std::chrono::hours(1)});
  EXPECT_TRUE(scraper.History().empty());
  std::shared_ptr<const ScrapeSnapshot> last;
  for (int i = 0; i < 100; ++i) last = scraper.Scrape();
  // 100 scrapes within far less than an hour / 32 of each other: the first and the newest.
  auto history = scraper.History();
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history.back()->taken, last->taken);
  EXPECT_LT(history.front()->taken, history.back()->taken);
  for (const auto& kept : history) {
    ASSERT_EQ(kept->families.size(), 1u);
    EXPECT_EQ(kept->families[0].name, "fake_value");
  }
  // A span of zero keeps the newest scrape alone.
  scraper.SetHistorySpan(std::chrono::seconds(0));
  (void)scraper.Scrape();
  EXPECT_EQ(scraper.History().size(), 1u);
}

TEST(ScraperTest, NoHistoryWithoutAFilter) {
  std::vector<NamedCollector> collectors;
  collectors.push_back({"fake", std::make_unique<FakeCollector>(OkStatus())});
  Scraper scraper(std::move(collectors), MetricSink());
  (void)scraper.Scrape();
  EXPECT_TRUE(scraper.History().empty());
}

}  // namespace
}  // namespace fabric
