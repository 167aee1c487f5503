#include "exporter/collectors/collective_collector.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/log.h"
#include "common/parse/collective_measurement.h"
#include "common/parse/nccl_inspector_parse.h"
#include "common/parse/nccl_tests_parse.h"
#include "common/read/file_reader.h"
#include "common/strings.h"

namespace fabric {
namespace {

constexpr double kGigabyte = 1e9;  // The tools' GB/s are 1e9 bytes per second.

enum class Source { kInspector, kNcclTests };

const char* SourceName(Source s) {
  return s == Source::kInspector ? "nccl_inspector" : "nccl_tests";
}

// Which tool wrote `name`, by the names each writes: the Inspector's
// nccl_inspector_metrics_<uuid>.prom (any *.prom), nccl-tests' -J NAME.json and
// the NAME.json.N it probes for when NAME.json exists.
std::optional<Source> SourceOf(std::string_view name) {
  auto ends = [&](std::string_view suffix) {
    return name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
  };
  if (ends(".prom")) return Source::kInspector;
  if (ends(".json")) return Source::kNcclTests;
  auto dot = name.rfind('.');
  if (dot != std::string_view::npos && dot > 0 && ParseUint64(name.substr(dot + 1)) &&
      ends(std::string(".json") + std::string(name.substr(dot)))) {
    return Source::kNcclTests;
  }
  return std::nullopt;
}

// Message-size buckets, bounded and coarse: small messages are latency-bound, the
// large ones are where bus bandwidth meets the fabric. Upper bounds exclusive.
struct Bucket {
  const char* name;
  double below;
};
constexpr std::array<Bucket, 6> kBuckets = {{
    {"0-64KiB", 64.0 * 1024},
    {"64KiB-1MiB", 1024.0 * 1024},
    {"1MiB-16MiB", 16.0 * 1024 * 1024},
    {"16MiB-256MiB", 256.0 * 1024 * 1024},
    {"256MiB-4GiB", 4096.0 * 1024 * 1024},
    {"4GiB+", 1e300},
}};

size_t BucketOf(uint64_t bytes) {
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    if (static_cast<double>(bytes) < kBuckets[i].below) return i;
  }
  return kBuckets.size() - 1;
}

const char* ScopeOf(int nodes) {
  if (nodes > 1) return "inter_node";
  if (nodes == 1) return "intra_node";
  return "unknown";
}

// A collective's name from a file, kept to a label's worth of plain characters.
std::string CleanName(const std::string& name) {
  std::string out;
  for (char c : name.substr(0, 64)) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '_' || c == '-';
    out.push_back(plain ? c : '_');
  }
  return out;
}

struct Settings {
  std::string directory;  // Empty: nothing to read.
  size_t max_files = 64;
  uint64_t max_file_bytes = 4 * 1024 * 1024;
  size_t max_series = 64;
  double max_age_seconds = 86400;
};

// One published series: the best bus bandwidth of its key.
struct Series {
  double bus_gbs = 0;
  std::optional<double> algorithm_gbs;
  double age_seconds = 0;
};
// source, scope, bucket index, collective: the order series are kept in when
// there are too many (inter-node and large messages first: what the rules judge).
using SeriesKey = std::tuple<std::string, std::string, size_t, std::string>;

bool KeepFirst(const SeriesKey& a, const SeriesKey& b) {
  auto rank = [](const SeriesKey& k) {
    const std::string& scope = std::get<1>(k);
    return std::make_tuple(std::get<0>(k),
                           scope == "inter_node"   ? 0
                           : scope == "intra_node" ? 1
                                                   : 2,
                           kBuckets.size() - std::get<2>(k), std::get<3>(k));
  };
  return rank(a) < rank(b);
}

class CollectiveCollector : public Collector {
 public:
  explicit CollectiveCollector(Settings settings) : settings_(std::move(settings)) {}

  Status Collect(MetricSink& sink) override {
    if (settings_.directory.empty()) return OkStatus();
    auto names = ListDirectory(settings_.directory);
    if (names.absent()) return OkStatus();  // The tools have not made it yet.
    if (!names.ok()) return Unexpected{names.error()};
    const double now = clock_.WallSeconds();

    struct Candidate {
      std::string name;
      Source source;
      FileInfo info;
    };
    std::vector<Candidate> candidates;
    for (const std::string& name : *names) {
      auto source = SourceOf(name);
      if (!source) continue;
      auto info = StatFile(settings_.directory + "/" + name);
      if (!info.ok() || !info->regular) continue;  // Gone meanwhile, or a directory.
      candidates.push_back({name, *source, *info});
    }
    // The newest files first, so a directory that fills up keeps its latest runs.
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
      if (a.info.modified_unix_seconds != b.info.modified_unix_seconds) {
        return a.info.modified_unix_seconds > b.info.modified_unix_seconds;
      }
      return a.name < b.name;
    });

    std::map<std::pair<std::string, std::string>, double> files;   // source, state
    std::map<std::pair<std::string, std::string>, double> errors;  // source, reason
    std::map<std::string, std::string> failing;                    // file -> reason
    std::map<SeriesKey, Series> series;
    for (size_t i = 0; i < candidates.size(); ++i) {
      const Candidate& c = candidates[i];
      const std::string source = SourceName(c.source);
      if (i >= settings_.max_files) {
        files[{source, "over_limit"}] += 1;
        continue;
      }
      if (now - c.info.modified_unix_seconds > settings_.max_age_seconds) {
        files[{source, "stale"}] += 1;
        continue;
      }
      CollectiveParse parsed = ReadAndParse(c.name, c.source, c.info);
      if (parsed.failure) {
        files[{source, "failed"}] += 1;
        const char* reason = CollectiveFailureName(*parsed.failure);
        errors[{source, reason}] += 1;
        failing[c.name] = reason;
        if (auto was = failing_.find(c.name); was == failing_.end() || was->second != reason) {
          log::Warn("collective file left out", {{"file", settings_.directory + "/" + c.name},
                                                 {"reason", reason},
                                                 {"err", parsed.message}});
        }
        continue;
      }
      files[{source, "read"}] += 1;
      for (const CollectiveMeasurement& m : parsed.measurements) {
        const double when = m.unix_seconds.value_or(c.info.modified_unix_seconds);
        const double age = std::max(0.0, now - when);
        if (age > settings_.max_age_seconds) continue;  // A communicator long finished.
        SeriesKey key{source, ScopeOf(m.nodes), BucketOf(m.message_bytes), CleanName(m.collective)};
        auto [it, fresh] = series.try_emplace(key);
        if (fresh || m.bus_gbs > it->second.bus_gbs) {
          it->second = Series{m.bus_gbs, m.algorithm_gbs, age};
        }
      }
    }
    failing_ = std::move(failing);
    Write(sink, series, files, errors);
    return OkStatus();
  }

 private:
  CollectiveParse ReadAndParse(const std::string& name, Source source, const FileInfo& info) {
    CollectiveParse failed;
    if (info.size > settings_.max_file_bytes) {
      failed.failure = CollectiveFailure::kTooLarge;
      failed.message = std::to_string(info.size) + " bytes, over max_file_bytes";
      return failed;
    }
    auto text = ReadTable(settings_.directory + "/" + name, settings_.max_file_bytes);
    if (!text.ok()) {
      failed.failure = CollectiveFailure::kUnreadable;
      failed.message = text.error().message;
      return failed;
    }
    return source == Source::kInspector ? ParseNcclInspectorProm(*text) : ParseNcclTestsJson(*text);
  }

  void Write(MetricSink& sink, const std::map<SeriesKey, Series>& series,
             const std::map<std::pair<std::string, std::string>, double>& files,
             const std::map<std::pair<std::string, std::string>, double>& errors) const {
    std::vector<SeriesKey> keys;
    for (const auto& [key, s] : series) keys.push_back(key);
    std::stable_sort(keys.begin(), keys.end(), KeepFirst);
    std::map<std::string, Series> other;  // By source: the best of what was folded.
    std::map<std::string, double> folded;
    for (size_t i = 0; i < keys.size(); ++i) {
      const SeriesKey& key = keys[i];
      const Series& s = series.at(key);
      if (i < settings_.max_series) {
        WriteSeries(sink,
                    {{"collective", std::get<3>(key)},
                     {"message_size", kBuckets[std::get<2>(key)].name},
                     {"scope", std::get<1>(key)},
                     {"source", std::get<0>(key)}},
                    s);
        continue;
      }
      const std::string& source = std::get<0>(key);
      folded[source] += 1;
      auto [it, fresh] = other.try_emplace(source, s);
      if (!fresh && s.bus_gbs > it->second.bus_gbs) it->second = s;
    }
    for (const auto& [source, s] : other) {
      WriteSeries(sink,
                  {{"collective", "other"},
                   {"message_size", "other"},
                   {"scope", "other"},
                   {"source", source}},
                  s);
    }
    for (const auto& [source, n] : folded) {
      sink.Gauge("fabric_collective_folded_series",
                 "Collective series beyond collectors.collective.max_series, folded into the "
                 "collective=\"other\" series (the best of them).",
                 {{"source", source}}, n);
    }
    for (const auto& [key, n] : files) {
      sink.Gauge("fabric_collective_files",
                 "Files of the collective directory by source and state: read, stale (older "
                 "than max_age), failed (see fabric_collective_file_errors) or over_limit "
                 "(beyond max_files, the oldest).",
                 {{"source", key.first}, {"state", key.second}}, n);
    }
    for (const auto& [key, n] : errors) {
      sink.Gauge("fabric_collective_file_errors",
                 "Files of the collective directory left out this scrape, by reason: syntax, "
                 "truncated (a run still writing it), no_results, unreadable, too_large.",
                 {{"reason", key.second}, {"source", key.first}}, n);
    }
  }

  static void WriteSeries(MetricSink& sink, const LabelPairs& labels, const Series& s) {
    sink.Gauge("fabric_collective_bus_bandwidth_bytes_per_second",
               "The best bus bandwidth NCCL reported for this collective and message-size "
               "bucket (busbw: algorithm bandwidth scaled so that it compares with the "
               "hardware's; NCCL Inspector or nccl-tests): the collective rung of the ladder.",
               labels, s.bus_gbs * kGigabyte);
    if (s.algorithm_gbs) {
      sink.Gauge("fabric_collective_algorithm_bandwidth_bytes_per_second",
                 "The algorithm bandwidth (message bytes over time) of the same measurement.",
                 labels, *s.algorithm_gbs * kGigabyte);
    }
    sink.Gauge("fabric_collective_measurement_age_seconds",
               "Seconds since that measurement: the time the file states (NCCL Inspector's "
               "timestamp label), else the file's modification time.",
               labels, s.age_seconds);
  }

  Settings settings_;
  SystemClock clock_;
  std::map<std::string, std::string> failing_;  // Last scrape's failing files, for the log.
};

}  // namespace

std::unique_ptr<Collector> MakeCollectiveCollector(const CollectorContext& context) {
  const ConfigNode& node = context.settings;
  Settings settings;
  if (auto dir = node.String("directory")) {
    std::filesystem::path p(*dir);
    if (p.is_relative() && !node.file().empty()) {
      p = std::filesystem::path(node.file()).parent_path() / p;
    }
    settings.directory = p.string();
  }
  if (auto n = node.Int("max_files", 1, 10000)) settings.max_files = static_cast<size_t>(*n);
  if (auto n = node.Int("max_file_bytes", 1024, 256LL * 1024 * 1024)) {
    settings.max_file_bytes = static_cast<uint64_t>(*n);
  }
  if (auto n = node.Int("max_series", 1, 10000)) settings.max_series = static_cast<size_t>(*n);
  if (auto age = node.DurationSeconds("max_age", 1, 1e10)) settings.max_age_seconds = *age;
  return std::make_unique<CollectiveCollector>(std::move(settings));
}

}  // namespace fabric
