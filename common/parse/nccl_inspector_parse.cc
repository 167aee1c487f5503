#include "common/parse/nccl_inspector_parse.h"

#include <cmath>
#include <ctime>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/parse/prom_text_parse.h"
#include "common/strings.h"

namespace fabric {
namespace {

constexpr std::string_view kBus = "nccl_bus_bandwidth_gbs";
constexpr std::string_view kAlgorithm = "nccl_algorithm_bandwidth_gbs";
constexpr std::string_view kTime = "nccl_collective_exec_time_microseconds";

int LabelInt(const PromSample& s, std::string_view a, std::string_view b = {}) {
  auto v = s.Label(a);
  if (!v && !b.empty()) v = s.Label(b);
  if (!v) return 0;
  auto n = ParseUint64(*v);
  return n && *n < 1000000 ? static_cast<int>(*n) : 0;
}

// The label set that ties the three samples of one collective together: all
// labels, in file order (the plugin writes one prefix for all three).
std::string KeyOf(const PromSample& s) {
  std::string key;
  for (const auto& [k, v] : s.labels) {
    key += k;
    key += '\0';
    key += v;
    key += '\0';
  }
  return key;
}

bool Finite(double v) { return std::isfinite(v) && v >= 0; }

}  // namespace

std::optional<uint64_t> ParseInspectorMessageSize(std::string_view text) {
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"TB", 1024.0 * 1024 * 1024 * 1024},
      {"GB", 1024.0 * 1024 * 1024},
      {"MB", 1024.0 * 1024},
      {"KB", 1024.0},
      {"B", 1.0}};
  for (const auto& [unit, scale] : kUnits) {
    if (text.size() <= unit.size() || text.substr(text.size() - unit.size()) != unit) continue;
    std::string_view number = text.substr(0, text.size() - unit.size());
    for (char c : number) {
      if (!((c >= '0' && c <= '9') || c == '.')) return std::nullopt;
    }
    auto v = ParseDouble(number);
    if (!v || !std::isfinite(*v) || *v < 0 || *v * scale > 1.8e19) return std::nullopt;
    return static_cast<uint64_t>(std::llround(*v * scale));
  }
  return std::nullopt;
}

std::optional<double> ParseUtcTimestamp(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SSZ, exactly.
  if (text.size() != 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':' || text[19] != 'Z') {
    return std::nullopt;
  }
  auto field = [&](size_t at, size_t len) { return ParseUint64(text.substr(at, len)); };
  auto year = field(0, 4), month = field(5, 2), day = field(8, 2);
  auto hour = field(11, 2), minute = field(14, 2), second = field(17, 2);
  if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
  if (*month < 1 || *month > 12 || *day < 1 || *day > 31 || *hour > 23 || *minute > 59 ||
      *second > 60 || *year < 1970) {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = static_cast<int>(*year) - 1900;
  tm.tm_mon = static_cast<int>(*month) - 1;
  tm.tm_mday = static_cast<int>(*day);
  tm.tm_hour = static_cast<int>(*hour);
  tm.tm_min = static_cast<int>(*minute);
  tm.tm_sec = static_cast<int>(*second);
  return static_cast<double>(timegm(&tm));
}

CollectiveParse ParseNcclInspectorProm(std::string_view text) {
  CollectiveParse result;
  PromTextParse parsed = ParsePromText(text);
  if (parsed.error) {
    result.failure = parsed.error->failure == PromTextFailure::kTruncated
                         ? CollectiveFailure::kTruncated
                         : CollectiveFailure::kSyntax;
    result.message = parsed.error->message;
    return result;
  }
  // Bus bandwidth first (it is what is published), then its companions by label set.
  std::map<std::string, size_t> by_key;
  for (const PromSample& s : parsed.samples) {
    if (s.name != kBus || !Finite(s.value)) continue;
    auto collective = s.Label("collective");
    auto size = s.Label("message_size");
    auto bytes = size ? ParseInspectorMessageSize(*size) : std::nullopt;
    if (!collective || collective->empty() || !bytes) continue;
    CollectiveMeasurement m;
    m.collective = std::string(*collective);
    m.message_bytes = *bytes;
    m.bus_gbs = s.value;
    m.nodes = LabelInt(s, "n_nodes", "nnodes");
    m.ranks = LabelInt(s, "nranks", "n_ranks");
    if (auto ts = s.Label("timestamp")) m.unix_seconds = ParseUtcTimestamp(*ts);
    if (!m.unix_seconds && s.timestamp_ms) m.unix_seconds = *s.timestamp_ms / 1000.0;
    by_key.emplace(KeyOf(s), result.measurements.size());
    result.measurements.push_back(std::move(m));
  }
  for (const PromSample& s : parsed.samples) {
    if ((s.name != kAlgorithm && s.name != kTime) || !Finite(s.value)) continue;
    auto it = by_key.find(KeyOf(s));
    if (it == by_key.end()) continue;
    CollectiveMeasurement& m = result.measurements[it->second];
    (s.name == kAlgorithm ? m.algorithm_gbs : m.time_us) = s.value;
  }
  if (result.measurements.empty()) {
    result.failure = CollectiveFailure::kNoResults;
    result.message = "no nccl_bus_bandwidth_gbs sample with a collective and a message_size";
  }
  return result;
}

}  // namespace fabric
