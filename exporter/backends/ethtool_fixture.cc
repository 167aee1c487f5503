// The fixture EthtoolBackend: recorded `ethtool` text from a fixture tree.
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include "common/read/file_reader.h"
#include "common/strings.h"
#include "exporter/backends/ethtool_backend.h"

namespace fabric {
namespace {

class FixtureEthtoolBackend : public EthtoolBackend {
 public:
  explicit FixtureEthtoolBackend(const SysRoot& root) : root_(root) {}

  Result<EthtoolDriverInfo> DriverInfo(const std::string& ifname) override {
    return Parsed<EthtoolDriverInfo>(ifname, EthtoolCommand::kDriverInfo, &ParseEthtoolDriverInfo);
  }
  Result<EthtoolStats> Stats(const std::string& ifname) override {
    return Parsed<EthtoolStats>(ifname, EthtoolCommand::kStats, &ParseEthtoolStats);
  }
  Result<EthtoolPause> Pause(const std::string& ifname) override {
    return Parsed<EthtoolPause>(ifname, EthtoolCommand::kPause, &ParseEthtoolPause);
  }
  Result<EthtoolLimits> Channels(const std::string& ifname) override {
    return Parsed<EthtoolLimits>(ifname, EthtoolCommand::kChannels, &ParseEthtoolLimits);
  }
  Result<EthtoolLimits> Rings(const std::string& ifname) override {
    return Parsed<EthtoolLimits>(ifname, EthtoolCommand::kRings, &ParseEthtoolLimits);
  }
  Result<EthtoolFec> Fec(const std::string& ifname) override {
    return Parsed<EthtoolFec>(ifname, EthtoolCommand::kFec, &ParseEthtoolFecText);
  }
  Result<EthtoolCoalesce> Coalesce(const std::string& ifname) override {
    return Parsed<EthtoolCoalesce>(ifname, EthtoolCommand::kCoalesce, &ParseEthtoolCoalesceText);
  }
  Result<EthtoolFeatures> Features(const std::string& ifname) override {
    return Parsed<EthtoolFeatures>(ifname, EthtoolCommand::kFeatures, &ParseEthtoolFeaturesText);
  }

 private:
  struct Recording {
    std::string path;
    EthtoolCommand command;
    // The file with its command line blanked, so parse errors name the
    // file's own line numbers (the parsers skip blank lines).
    std::string body;
  };

  // Reads one recording and checks that it belongs to `ifname`.
  static Result<Recording> Load(const std::string& ifname, const AttributeDir& dir,
                                const std::string& name) {
    const std::string path = dir.path() + "/" + name;
    auto text = dir.ReadTable(name, 1 << 20);
    if (!text.ok()) return Unexpected{text.error()};
    std::string_view all = *text;
    size_t newline = all.find('\n');
    auto recorded = ParseRecordedCommandLine(all.substr(0, newline), path);
    if (!recorded.ok()) return Unexpected{recorded.error()};
    if (recorded->interface != ifname) {
      return MakeError(path + ":1: records interface " + Quote(recorded->interface) +
                       " but lies under " + Quote(ifname));
    }
    std::string body(newline == std::string_view::npos ? "" : all.substr(newline));
    return Recording{path, recorded->command, std::move(body)};
  }

  // Finds the recording of `command` for `ifname` among the interface's
  // files. Where each command was found is remembered: scanning the directory
  // for each of the eight commands read every file eight times per scrape. The
  // remembered file is still read and its command line checked each time, so
  // a changed tree is noticed and scanned again.
  Result<Recording> Find(const std::string& ifname, EthtoolCommand command) {
    const auto key = std::make_pair(ifname, command);
    std::string known;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = located_.find(key);
      if (it != located_.end()) known = it->second;
    }
    const AttributeDir dir(RecordedEthtoolDir(root_, ifname));
    if (!known.empty()) {
      auto recording = Load(ifname, dir, known);
      if (recording.ok() && recording->command == command) return recording;
    }
    auto names = ListDirectory(dir.path());
    if (!names.ok()) return Unexpected{names.error()};
    std::optional<Recording> found;
    for (const auto& name : *names) {
      auto recording = Load(ifname, dir, name);
      if (!recording.ok()) return Unexpected{recording.error()};
      {
        std::lock_guard<std::mutex> lock(mutex_);
        located_[std::make_pair(ifname, recording->command)] = name;
      }
      if (recording->command == command && !found) found = std::move(*recording);
    }
    if (found) return std::move(*found);
    return MakeAbsent(dir.path() + ": no recording of this ethtool command");
  }

  template <typename T, typename Parser>
  Result<T> Parsed(const std::string& ifname, EthtoolCommand command, Parser parse) {
    auto recording = Find(ifname, command);
    if (!recording.ok()) return Unexpected{recording.error()};
    return parse(recording->body, recording->path);
  }

  SysRoot root_;
  std::mutex mutex_;
  // File name under the interface's recording directory, by command.
  std::map<std::pair<std::string, EthtoolCommand>, std::string> located_;
};

}  // namespace

std::string RecordedEthtoolDir(const SysRoot& root, const std::string& ifname) {
  return root.Sys("class/net/" + ifname + "/ethtool.recorded");
}

std::unique_ptr<EthtoolBackend> MakeFixtureEthtoolBackend(const SysRoot& root) {
  return std::make_unique<FixtureEthtoolBackend>(root);
}

}  // namespace fabric
