#include "exporter/scheduled_probes/result_store.h"

#include <fcntl.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "common/read/file_reader.h"
#include "common/unique_fd.h"

namespace fabric {
namespace {

using probe::DirectionName;
using probe::RungLabel;

constexpr int kStateFormatVersion = 1;

Status WriteAll(int fd, const std::string& data, const std::string& path) {
  size_t written = 0;
  while (written < data.size()) {
    ssize_t n = ::write(fd, data.data() + written, data.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return MakeError("write " + path + ": " + std::strerror(errno));
    }
    written += static_cast<size_t>(n);
  }
  return OkStatus();
}

void EmitKey(YAML::Emitter& out, const ProbeKey& key) {
  out << YAML::Key << "probe" << YAML::Value << std::string(RungLabel(key.probe));
  out << YAML::Key << "target" << YAML::Value << key.target;
  out << YAML::Key << "direction" << YAML::Value << std::string(DirectionName(key.direction));
}

void EmitCandidate(YAML::Emitter& out, const TcpCandidate& c) {
  out << YAML::Key << "mode" << YAML::Value << std::string(probe::SendModeName(c.mode));
  out << YAML::Key << "block" << YAML::Value << c.block;
}

// A candidate of the table, or nullopt for one this version does not know.
std::optional<TcpCandidate> CandidateOf(const YAML::Node& node) {
  return FindTcpCandidate(node["mode"].as<std::string>(), node["block"].as<uint32_t>());
}

void EmitKept(YAML::Emitter& out, const char* name, const std::optional<KeptResult>& kept) {
  if (!kept) return;
  out << YAML::Key << name << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "timestamp" << YAML::Value << kept->timestamp_seconds;
  out << YAML::Key << "bytes_per_second" << YAML::Value << kept->bytes_per_second;
  out << YAML::EndMap;
}

std::optional<KeptResult> KeptOf(const YAML::Node& node) {
  if (!node) return std::nullopt;
  KeptResult kept{node["timestamp"].as<double>(), node["bytes_per_second"].as<double>()};
  if (!std::isfinite(kept.timestamp_seconds) || !std::isfinite(kept.bytes_per_second)) {
    throw YAML::Exception(node.Mark(), "not a finite number");
  }
  return kept;
}

std::string Serialize(const std::vector<ProbeRecord>& records,
                      const std::map<ProbeKey, TcpCalibration>& calibrations) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "version" << YAML::Value << kStateFormatVersion;
  out << YAML::Key << "results" << YAML::Value << YAML::BeginSeq;
  for (const auto& r : records) {
    out << YAML::BeginMap;
    out << YAML::Key << "probe" << YAML::Value << std::string(RungLabel(r.key.probe));
    out << YAML::Key << "target" << YAML::Value << r.key.target;
    out << YAML::Key << "direction" << YAML::Value << std::string(DirectionName(r.key.direction));
    out << YAML::Key << "timestamp" << YAML::Value << r.timestamp_seconds;
    out << YAML::Key << "success" << YAML::Value << r.success;
    out << YAML::Key << "failure_reason" << YAML::Value << r.failure_reason;
    out << YAML::Key << "failure_detail" << YAML::Value << r.failure_detail;
    out << YAML::Key << "duration" << YAML::Value << r.duration_seconds;
    if (r.period_seconds > 0) out << YAML::Key << "period" << YAML::Value << r.period_seconds;
    // By name, so a file lists them the same way whatever the ids' order.
    std::map<std::string, double> values;
    for (const auto& [id, value] : r.values) values[std::string(probe::ValueName(id))] = value;
    out << YAML::Key << "values" << YAML::Value << YAML::BeginMap;
    for (const auto& [name, value] : values) out << YAML::Key << name << YAML::Value << value;
    out << YAML::EndMap;
    std::map<std::string, bool> verdicts;
    for (const auto& [id, raised] : r.verdicts) {
      verdicts[std::string(probe::VerdictName(id))] = raised;
    }
    out << YAML::Key << "verdicts" << YAML::Value << YAML::BeginMap;
    for (const auto& [name, raised] : verdicts) out << YAML::Key << name << YAML::Value << raised;
    out << YAML::EndMap;
    out << YAML::Key << "info" << YAML::Value << YAML::BeginMap;
    for (const auto& [name, value] : r.info) out << YAML::Key << name << YAML::Value << value;
    out << YAML::EndMap;
    EmitKept(out, "uncontended", r.uncontended);
    EmitKept(out, "clean", r.clean);
    EmitKept(out, "best", r.best);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "tcp_calibration" << YAML::Value << YAML::BeginSeq;
  for (const auto& [key, c] : calibrations) {
    out << YAML::BeginMap;
    EmitKey(out, key);
    out << YAML::Key << "timestamp" << YAML::Value << c.timestamp_seconds;
    EmitCandidate(out, c.chosen);
    out << YAML::Key << "measured" << YAML::Value << YAML::BeginSeq;
    for (const auto& f : c.measured) {
      out << YAML::Flow << YAML::BeginMap;
      EmitCandidate(out, f.candidate);
      out << YAML::Key << "bytes_per_second" << YAML::Value << f.bytes_per_second;
      out << YAML::EndMap;
    }
    out << YAML::EndSeq << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace

void KeepResults(ProbeRecord& record, const ProbeRecord* previous, double best_window_seconds) {
  // The ladder's rungs only: what the rules divide by and judge paths by (comparison runs are
  // judged run by run).
  if (!probe::InfoOf(record.key.probe).ladder_layer) return;
  auto throughput = record.values.find(probe::ProbeValue::kThroughput);
  const bool measured =
      record.success && record.timestamp_seconds > 0 && throughput != record.values.end();
  auto raised = [&](probe::Verdict v) {
    auto it = record.verdicts.find(v);
    return it != record.verdicts.end() && it->second;
  };
  const bool uncontended = measured && !raised(probe::Verdict::kContended);
  const bool clean = uncontended && !raised(probe::Verdict::kCpuBound);
  const KeptResult own =
      measured ? KeptResult{record.timestamp_seconds, throughput->second} : KeptResult{};
  if (!record.uncontended) {
    record.uncontended = uncontended ? own : previous ? previous->uncontended : std::nullopt;
  }
  if (!record.clean) {
    record.clean = clean ? own : previous ? previous->clean : std::nullopt;
  }
  if (!record.best && best_window_seconds > 0) {
    record.best = previous ? previous->best : std::nullopt;
    if (clean && (!record.best || own.bytes_per_second >= record.best->bytes_per_second ||
                  own.timestamp_seconds - record.best->timestamp_seconds > best_window_seconds)) {
      record.best = own;
    }
  }
}

std::strong_ordering ProbeKey::operator<=>(const ProbeKey& other) const {
  if (auto c = RungLabel(probe) <=> RungLabel(other.probe); c != 0) return c;
  if (auto c = target <=> other.target; c != 0) return c;
  return DirectionName(direction) <=> DirectionName(other.direction);
}

void ResultStore::Expect(const ProbeKey& key, double period_seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  ProbeRecord empty;
  empty.key = key;
  empty.period_seconds = period_seconds;
  auto [slot, inserted] = records_.try_emplace(key, std::move(empty));
  if (!inserted && period_seconds > 0) slot->second.period_seconds = period_seconds;
}

std::optional<ProbeRecord> ResultStore::Find(const ProbeKey& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = records_.find(key);
  if (it == records_.end()) return std::nullopt;
  return it->second;
}

void ResultStore::SetCalibration(const ProbeKey& key, TcpCalibration calibration) {
  std::lock_guard<std::mutex> lock(mutex_);
  calibrations_[key] = std::move(calibration);
}

std::optional<TcpCalibration> ResultStore::Calibration(const ProbeKey& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = calibrations_.find(key);
  if (it == calibrations_.end()) return std::nullopt;
  return it->second;
}

std::map<ProbeKey, TcpCalibration> ResultStore::Calibrations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return calibrations_;
}

void ResultStore::Record(ProbeRecord record) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto [slot, inserted] = records_.try_emplace(record.key);
  // The period is the schedule's, not the run's: a run keeps the configured one.
  if (record.period_seconds <= 0) record.period_seconds = slot->second.period_seconds;
  KeepResults(record, inserted ? nullptr : &slot->second, best_window_seconds_);
  slot->second = std::move(record);
}

void ResultStore::SetBestWindow(double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  best_window_seconds_ = seconds;
}

std::vector<ProbeRecord> ResultStore::Snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<ProbeRecord> out;
  for (const auto& [key, record] : records_) out.push_back(record);
  return out;
}

std::string ResultStore::SaveText() const {
  std::vector<ProbeRecord> records;
  for (auto& r : Snapshot()) {
    if (r.timestamp_seconds > 0) records.push_back(std::move(r));  // Only real results.
  }
  return Serialize(records, Calibrations());
}

Status ResultStore::Save(const std::string& path) const {
  const std::string data = SaveText();
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!fd.valid()) return MakeError("create " + tmp + ": " + std::strerror(errno));
    Status written = WriteAll(fd.get(), data, tmp);
    if (written.ok() && ::fsync(fd.get()) != 0) {
      written = MakeError("fsync " + tmp + ": " + std::strerror(errno));
    }
    if (!written.ok()) {
      ::unlink(tmp.c_str());
      return written;
    }
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return MakeError("rename " + tmp + " to " + path + ": " + std::strerror(err));
  }
  std::string dir = std::filesystem::path(path).parent_path().string();
  UniqueFd dir_fd(::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir_fd.valid()) ::fsync(dir_fd.get());
  return OkStatus();
}

Status ResultStore::Load(const std::string& path, LoadScope scope) {
  auto text = ReadTable(path);
  if (!text.ok()) return Unexpected{text.error()};
  return LoadText(*text, path, scope);
}

Status ResultStore::LoadText(const std::string& text, const std::string& path, LoadScope scope) {
  std::vector<ProbeRecord> loaded;
  std::vector<std::pair<ProbeKey, TcpCalibration>> calibrations;
  try {
    YAML::Node root = YAML::Load(text);
    if (!root.IsMap() || root["version"].as<int>() != kStateFormatVersion) {
      return MakeError(path + ": not a fabric_exporter state file of version " +
                       std::to_string(kStateFormatVersion));
    }
    for (const auto& node : root["results"]) {
      ProbeRecord r;
      // A record of a rung or direction this version does not know (a file
      // from a newer exporter) is skipped: nothing here could publish it.
      auto rung = probe::RungFromLabel(node["probe"].as<std::string>());
      auto direction = probe::RecordDirectionFromName(node["direction"].as<std::string>());
      if (!rung || !direction) continue;
      r.key = {*rung, node["target"].as<std::string>(), *direction};
      r.timestamp_seconds = node["timestamp"].as<double>();
      r.success = node["success"].as<bool>();
      r.failure_reason = node["failure_reason"].as<std::string>();
      r.failure_detail = node["failure_detail"].as<std::string>();
      r.duration_seconds = node["duration"].as<double>();
      if (node["period"]) r.period_seconds = node["period"].as<double>();
      // Values and verdicts by name; names no longer in the catalogue (never
      // published) are dropped.
      for (const auto& v : node["values"]) {
        double value = v.second.as<double>();
        if (!std::isfinite(value)) throw YAML::Exception(v.second.Mark(), "not a finite number");
        if (auto id = probe::ValueFromName(v.first.as<std::string>())) r.values[*id] = value;
      }
      for (const auto& v : node["verdicts"]) {
        bool raised = v.second.as<bool>();
        if (auto id = probe::VerdictFromName(v.first.as<std::string>())) r.verdicts[*id] = raised;
      }
      for (const auto& v : node["info"])
        r.info[v.first.as<std::string>()] = v.second.as<std::string>();
      // Absent in files before kept results, and in hand-written recordings: from the run.
      r.uncontended = KeptOf(node["uncontended"]);
      r.clean = KeptOf(node["clean"]);
      r.best = KeptOf(node["best"]);
      KeepResults(r, nullptr);
      loaded.push_back(std::move(r));
    }
    // Absent in files of versions before calibration.
    for (const auto& node : root["tcp_calibration"]) {
      auto rung = probe::RungFromLabel(node["probe"].as<std::string>());
      auto direction = probe::RecordDirectionFromName(node["direction"].as<std::string>());
      auto chosen = CandidateOf(node);
      if (!rung || !direction || !chosen) continue;  // Calibrated again.
      TcpCalibration c;
      c.timestamp_seconds = node["timestamp"].as<double>();
      c.chosen = *chosen;
      for (const auto& m : node["measured"]) {
        if (auto candidate = CandidateOf(m)) {
          c.measured.push_back({*candidate, m["bytes_per_second"].as<double>()});
        }
      }
      calibrations.emplace_back(ProbeKey{*rung, node["target"].as<std::string>(), *direction},
                                std::move(c));
    }
  } catch (const YAML::Exception& e) {
    return MakeError(path + ":" + std::to_string(e.mark.line + 1) +
                     ": corrupt state file: " + e.msg);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& r : loaded) {
    // Only probes still configured come back: a removed peer's last result
    // must not be exported for ever.
    auto slot = records_.find(r.key);
    if (slot == records_.end() && scope == LoadScope::kEverything) {
      records_.emplace(r.key, std::move(r));
      continue;
    }
    if (slot != records_.end() && r.timestamp_seconds > slot->second.timestamp_seconds) {
      // The configured period wins over the one the file was saved with.
      if (slot->second.period_seconds > 0) r.period_seconds = slot->second.period_seconds;
      slot->second = std::move(r);
    }
  }
  // Like the results: a calibration only for a rung still configured.
  for (auto& [key, c] : calibrations) {
    if (scope == LoadScope::kEverything || records_.count(key)) calibrations_[key] = std::move(c);
  }
  return OkStatus();
}

}  // namespace fabric
