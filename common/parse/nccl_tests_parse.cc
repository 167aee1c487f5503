#include "common/parse/nccl_tests_parse.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <utility>

#include "common/strings.h"

namespace fabric {
namespace {

using Json = nlohmann::json;

// Finds where a document failed, to tell a truncated file (the error at its
// end: a run still writing) from a broken one. Every event is accepted.
class ErrorPosition : public nlohmann::json_sax<Json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception&) override {
    position_ = position;
    return false;
  }
  std::size_t position() const { return position_; }

 private:
  std::size_t position_ = 0;
};

// The nccl-tests program names whose collective is not their words capitalised.
constexpr std::pair<std::string_view, std::string_view> kPrograms[] = {
    {"alltoall", "AllToAll"}, {"alltoallv", "AllToAllV"}, {"sendrecv", "SendRecv"}};

std::optional<double> Number(const Json& object, const char* key) {
  if (!object.is_object()) return std::nullopt;
  auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;  // "nan" is a string.
  double v = it->get<double>();
  if (!std::isfinite(v) || v < 0) return std::nullopt;
  return v;
}

}  // namespace

std::string CollectiveOfProgram(std::string_view program) {
  if (auto slash = program.rfind('/'); slash != std::string_view::npos) {
    program.remove_prefix(slash + 1);
  }
  for (std::string_view suffix : {"_perf_mpi", "_perf"}) {
    if (program.size() > suffix.size() &&
        program.substr(program.size() - suffix.size()) == suffix) {
      program.remove_suffix(suffix.size());
      std::string out;
      for (const auto& [name, collective] : kPrograms) {
        if (program == name) return std::string(collective);
      }
      bool upper = true;
      for (char c : program) {
        if (c == '_') {
          upper = true;
          continue;
        }
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return "";
        out.push_back(upper && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
        upper = false;
      }
      return out;
    }
  }
  return "";
}

CollectiveParse ParseNcclTestsJson(std::string_view text) {
  CollectiveParse result;
  Json doc = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    ErrorPosition where;
    Json::sax_parse(text.begin(), text.end(), &where, nlohmann::json::input_format_t::json,
                    /*strict=*/true);
    // The parser reports the position just past the byte it stopped at.
    const bool at_end = where.position() >= TrimSpace(text).size() + (text.empty() ? 0 : 1) ||
                        where.position() >= text.size();
    result.failure = at_end && !TrimSpace(text).empty() ? CollectiveFailure::kTruncated
                                                        : CollectiveFailure::kSyntax;
    result.message = at_end ? "the JSON document ends early (a run still writing?)"
                            : "not JSON (byte " + std::to_string(where.position()) + ")";
    return result;
  }
  auto fail = [&](CollectiveFailure failure, std::string message) {
    result.measurements.clear();
    result.failure = failure;
    result.message = std::move(message);
    return result;
  };
  if (!doc.is_object() || !doc.contains("results") || !doc["results"].is_array()) {
    return fail(CollectiveFailure::kSyntax, "no results list: not nccl-tests JSON output");
  }
  std::string program_collective;
  if (auto args = doc.find("args");
      args != doc.end() && args->is_array() && !args->empty() && (*args)[0].is_string()) {
    program_collective = CollectiveOfProgram((*args)[0].get<std::string>());
  }
  int nodes = 0;
  int ranks = 0;
  if (auto config = doc.find("config"); config != doc.end() && config->is_object()) {
    if (auto devices = config->find("devices"); devices != config->end() && devices->is_array()) {
      std::set<std::string> hosts;
      for (const Json& d : *devices) {
        if (!d.is_object()) continue;
        ++ranks;
        if (auto h = d.find("hostname"); h != d.end() && h->is_string()) {
          hosts.insert(h->get<std::string>());
        }
      }
      nodes = static_cast<int>(hosts.size());
    }
  }
  for (const Json& r : doc["results"]) {
    if (!r.is_object()) continue;
    auto size = r.find("size");
    if (size == r.end() || !size->is_number_unsigned()) continue;
    std::string collective = program_collective;
    if (auto name = r.find("experiment_name");
        name != r.end() && name->is_string() && !name->get<std::string>().empty()) {
      collective = name->get<std::string>();
    }
    if (collective.empty()) continue;
    std::optional<CollectiveMeasurement> best;
    for (const char* run : {"out_of_place", "in_place"}) {
      auto it = r.find(run);
      if (it == r.end()) continue;
      auto bus = Number(*it, "bus_bw");
      if (!bus || (best && best->bus_gbs >= *bus)) continue;
      CollectiveMeasurement m;
      m.collective = collective;
      m.message_bytes = size->get<uint64_t>();
      m.bus_gbs = *bus;
      m.algorithm_gbs = Number(*it, "alg_bw");
      m.time_us = Number(*it, "time");
      if (!m.time_us) m.time_us = Number(*it, "cpu_time");
      m.nodes = nodes;
      m.ranks = ranks;
      best = std::move(m);
    }
    if (best) result.measurements.push_back(std::move(*best));
  }
  if (result.measurements.empty()) {
    return fail(CollectiveFailure::kNoResults,
                "no result with a size and a bus bandwidth (or no collective name)");
  }
  return result;
}

}  // namespace fabric
