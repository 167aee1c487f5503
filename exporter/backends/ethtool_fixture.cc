// The fixture EthtoolBackend: recorded `ethtool` text from a fixture tree.
#include <map>

#include "common/strings.h"
#include "exporter/backends/ethtool_backend.h"
#include "exporter/core/file_reader.h"

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

 private:
  struct Recording {
    std::string path;
    // The file with its command line blanked, so parse errors name the
    // file's own line numbers (the parsers skip blank lines).
    std::string body;
  };

  // Finds the recording of `command` for `ifname` among the interface's files.
  Result<Recording> Find(const std::string& ifname, EthtoolCommand command) {
    std::string dir = RecordedEthtoolDir(root_, ifname);
    auto names = ListDirectory(dir);
    if (!names.ok()) return Unexpected{names.error()};
    for (const auto& name : *names) {
      std::string path = dir + "/" + name;
      auto text = ReadTable(path, 1 << 20);
      if (!text.ok()) return Unexpected{text.error()};
      std::string_view all = *text;
      size_t newline = all.find('\n');
      std::string_view first = all.substr(0, newline);
      auto recorded = ParseRecordedCommandLine(first, path);
      if (!recorded.ok()) return Unexpected{recorded.error()};
      if (recorded->interface != ifname) {
        return MakeError(path + ":1: records interface " + Quote(recorded->interface) +
                         " but lies under " + Quote(ifname));
      }
      if (recorded->command != command) continue;
      std::string body(newline == std::string_view::npos ? "" : all.substr(newline));
      return Recording{path, std::move(body)};
    }
    return MakeAbsent(dir + ": no recording of this ethtool command");
  }

  template <typename T, typename Parser>
  Result<T> Parsed(const std::string& ifname, EthtoolCommand command, Parser parse) {
    auto recording = Find(ifname, command);
    if (!recording.ok()) return Unexpected{recording.error()};
    return parse(recording->body, recording->path);
  }

  SysRoot root_;
};

}  // namespace

std::string RecordedEthtoolDir(const SysRoot& root, const std::string& ifname) {
  return root.Sys("class/net/" + ifname + "/ethtool.recorded");
}

std::unique_ptr<EthtoolBackend> MakeFixtureEthtoolBackend(const SysRoot& root) {
  return std::make_unique<FixtureEthtoolBackend>(root);
}

}  // namespace fabric
