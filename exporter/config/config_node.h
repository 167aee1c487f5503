// ConfigNode: a YAML node that remembers which file and key path it came from,
// so every validation error names file:line:column and the dotted key.
// Start-up only: errors are thrown as ConfigError and caught in main().
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fabric {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ConfigNode {
 public:
  // An empty node (no such section in the file).
  ConfigNode() = default;
  ConfigNode(YAML::Node node, std::string file, std::string key_path);

  // Parses a file; a YAML syntax error throws ConfigError naming file:line.
  // `contents`, when given, receives the file's bytes (for a config hash).
  static ConfigNode LoadFile(const std::string& path, std::string* contents = nullptr);
  static ConfigNode LoadString(const std::string& text, const std::string& name);

  bool present() const { return node_.IsDefined() && !node_.IsNull(); }

  // Requires a mapping whose keys are all in `known` (and none repeated).
  void ExpectMapWithKeys(const std::vector<std::string_view>& known) const;
  void ExpectMapWithKeys(std::initializer_list<std::string_view> known) const {
    ExpectMapWithKeys(std::vector<std::string_view>(known));
  }
  // Requires a mapping; returns its keys in file order (for maps keyed by
  // user-chosen names, e.g. `collectors`).
  std::vector<std::string> MapKeys() const;

  ConfigNode Child(std::string_view key) const;

  std::optional<bool> Bool(std::string_view key) const;
  std::optional<std::string> String(std::string_view key) const;
  std::optional<int64_t> Int(std::string_view key, int64_t min, int64_t max) const;
  std::optional<double> Double(std::string_view key, double min, double max) const;
  std::optional<std::vector<std::string>> StringList(std::string_view key) const;
  // A Prometheus-style duration ("90s", "5m", "1h30m", "250ms") in seconds.
  std::optional<double> DurationSeconds(std::string_view key, double min, double max) const;
  // The elements of a list of mappings (e.g. fleet.nodes), each addressable
  // as key_path[i] in errors.
  std::vector<ConfigNode> Elements(std::string_view key) const;

  // A copy in which the scalar at `path` (keys from this node down) is
  // `value`, creating mappings on the way. Messages about that key then name
  // `origin` (e.g. the flag that set it) instead of a file position.
  ConfigNode WithOverride(const std::vector<std::string>& path, const std::string& value,
                          const std::string& origin) const;

  // "file:line:col: key a.b.c: " for a message about `key` (or this node).
  std::string Where(std::string_view key = {}) const;
  [[noreturn]] void Fail(std::string_view key, const std::string& problem) const;

  const std::string& file() const { return file_; }
  const std::string& key_path() const { return key_path_; }

 private:
  std::string ChildPath(std::string_view key) const;
  // The scalar at `key`, checked to be a plain (unquoted) scalar when
  // `plain_required`; nullopt when absent or null.
  std::optional<YAML::Node> Scalar(std::string_view key, std::string_view expected,
                                   bool plain_required) const;

  YAML::Node node_;
  std::string file_;
  std::string key_path_;
  // Dotted key path -> where an overridden value came from.
  std::map<std::string, std::string> origins_;
};

}  // namespace fabric
