#include "exporter/config/config_node.h"

#include <cctype>
#include <cmath>
#include <set>
#include <utility>

#include "common/read/file_reader.h"
#include "common/strings.h"

namespace fabric {
namespace {

std::string MarkText(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null()) return file;
  return file + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

std::string Describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Null:
      return "null";
    case YAML::NodeType::Undefined:
      return "nothing";
    case YAML::NodeType::Scalar:
      return (node.Tag() == "!" ? "the string " : "") + Quote(node.Scalar());
  }
  return "something else";
}

}  // namespace

ConfigNode::ConfigNode(YAML::Node node, std::string file, std::string key_path)
    : node_(std::move(node)), file_(std::move(file)), key_path_(std::move(key_path)) {}

ConfigNode ConfigNode::LoadFile(const std::string& path, std::string* contents) {
  auto text = ReadTable(path, 1024 * 1024);
  if (!text.ok())
    throw ConfigError(path + ": cannot read the config file: " + text.error().message);
  if (contents != nullptr) *contents = *text;
  return LoadString(*text, path);
}

ConfigNode ConfigNode::LoadString(const std::string& text, const std::string& name) {
  try {
    return ConfigNode(YAML::Load(text), name, "");
  } catch (const YAML::ParserException& e) {
    throw ConfigError(MarkText(name, e.mark) + ": YAML syntax error: " + e.msg);
  }
}

std::string ConfigNode::ChildPath(std::string_view key) const {
  if (key_path_.empty()) return std::string(key);
  return key_path_ + "." + std::string(key);
}

ConfigNode ConfigNode::WithOverride(const std::vector<std::string>& path, const std::string& value,
                                    const std::string& origin) const {
  ConfigNode copy = *this;
  // yaml-cpp's Node::operator= writes through to the referenced node;
  // reset() rebinds, so the original stays untouched.
  copy.node_.reset(node_.IsMap() ? YAML::Clone(node_) : YAML::Node(YAML::NodeType::Map));
  YAML::Node at;
  at.reset(copy.node_);
  std::string dotted = key_path_;
  for (size_t i = 0; i < path.size(); ++i) {
    dotted += (dotted.empty() ? "" : ".") + path[i];
    if (i + 1 == path.size()) {
      at[path[i]] = value;
      break;
    }
    if (!at[path[i]].IsMap()) at[path[i]] = YAML::Node(YAML::NodeType::Map);
    YAML::Node next = at[path[i]];
    at.reset(next);
  }
  copy.origins_[dotted] = origin;
  return copy;
}

std::string ConfigNode::Where(std::string_view key) const {
  if (auto it = origins_.find(key.empty() ? key_path_ : ChildPath(key)); it != origins_.end()) {
    return it->second + ": key " + it->first + ": ";
  }
  YAML::Mark mark = node_.IsDefined() ? node_.Mark() : YAML::Mark::null_mark();
  if (!key.empty() && node_.IsMap()) {
    for (auto it = node_.begin(); it != node_.end(); ++it) {
      if (it->first.IsScalar() && it->first.Scalar() == key) {
        mark = it->second.IsDefined() && !it->second.Mark().is_null() ? it->second.Mark()
                                                                      : it->first.Mark();
        break;
      }
    }
  }
  std::string path = key.empty() ? key_path_ : ChildPath(key);
  return MarkText(file_, mark) + ": key " + (path.empty() ? "(top level)" : path) + ": ";
}

void ConfigNode::Fail(std::string_view key, const std::string& problem) const {
  throw ConfigError(Where(key) + problem);
}

std::vector<std::string> ConfigNode::MapKeys() const {
  std::vector<std::string> keys;
  if (!present()) return keys;
  if (!node_.IsMap()) Fail({}, "expected a mapping, got " + Describe(node_));
  std::set<std::string> seen;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (!it->first.IsScalar()) {
      throw ConfigError(MarkText(file_, it->first.Mark()) + ": key " +
                        (key_path_.empty() ? "(top level)" : key_path_) +
                        ": keys must be plain words");
    }
    const std::string& key = it->first.Scalar();
    if (!seen.insert(key).second) {
      throw ConfigError(MarkText(file_, it->first.Mark()) + ": key " + ChildPath(key) +
                        ": appears twice");
    }
    keys.push_back(key);
  }
  return keys;
}

void ConfigNode::ExpectMapWithKeys(const std::vector<std::string_view>& known) const {
  for (const auto& key : MapKeys()) {
    bool ok = false;
    for (auto k : known) ok = ok || k == key;
    if (ok) continue;
    std::string list;
    for (auto k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    for (auto it = node_.begin(); it != node_.end(); ++it) {
      if (it->first.Scalar() == key) {
        throw ConfigError(MarkText(file_, it->first.Mark()) + ": key " + ChildPath(key) +
                          ": unknown key (known here: " + list + ")");
      }
    }
  }
}

ConfigNode ConfigNode::Child(std::string_view key) const {
  if (!node_.IsMap()) return ConfigNode(YAML::Node(), file_, ChildPath(key));
  const YAML::Node& self = node_;
  YAML::Node child = self[std::string(key)];
  // A missing key yields an "invalid" yaml-cpp node that throws on most
  // calls; represent it as an empty node instead.
  // (yaml-cpp nodes have reference semantics: assigning to `child` would
  // write through it, so build a fresh node.)
  ConfigNode out(child.IsDefined() ? child : YAML::Node(), file_, ChildPath(key));
  out.origins_ = origins_;
  return out;
}

std::optional<YAML::Node> ConfigNode::Scalar(std::string_view key, std::string_view expected,
                                             bool plain_required) const {
  if (!node_.IsMap()) return std::nullopt;
  const YAML::Node& self = node_;
  YAML::Node value = self[std::string(key)];
  if (!value.IsDefined() || value.IsNull()) return std::nullopt;
  if (!value.IsScalar() || (plain_required && value.Tag() == "!")) {
    Fail(key, "expected " + std::string(expected) + ", got " + Describe(value));
  }
  return value;
}

std::optional<bool> ConfigNode::Bool(std::string_view key) const {
  auto value = Scalar(key, "true or false", true);
  if (!value) return std::nullopt;
  const std::string& s = value->Scalar();
  if (s == "true") return true;
  if (s == "false") return false;
  Fail(key, "expected true or false, got " + Describe(*value));
}

std::optional<std::string> ConfigNode::String(std::string_view key) const {
  auto value = Scalar(key, "a string", false);
  if (!value) return std::nullopt;
  return value->Scalar();
}

std::optional<int64_t> ConfigNode::Int(std::string_view key, int64_t min, int64_t max) const {
  auto value = Scalar(key, "an integer", true);
  if (!value) return std::nullopt;
  auto parsed = ParseInt64(value->Scalar());
  if (!parsed) Fail(key, "expected an integer, got " + Describe(*value));
  if (*parsed < min || *parsed > max) {
    Fail(key, "value " + std::to_string(*parsed) + " is out of range [" + std::to_string(min) +
                  ", " + std::to_string(max) + "]");
  }
  return parsed;
}

std::optional<double> ConfigNode::Double(std::string_view key, double min, double max) const {
  auto value = Scalar(key, "a number", true);
  if (!value) return std::nullopt;
  auto parsed = ParseDouble(value->Scalar());
  if (!parsed || !std::isfinite(*parsed)) {
    Fail(key, "expected a number, got " + Describe(*value));
  }
  if (*parsed < min || *parsed > max) {
    Fail(key, "value " + value->Scalar() + " is out of range [" + std::to_string(min) + ", " +
                  std::to_string(max) + "]");
  }
  return parsed;
}

std::optional<double> ConfigNode::DurationSeconds(std::string_view key, double min,
                                                  double max) const {
  auto value = Scalar(key, "a duration such as 30s, 5m or 1h", true);
  if (!value) return std::nullopt;
  std::string_view text = value->Scalar();
  double total = 0;
  bool any = false;
  while (!text.empty()) {
    size_t digits = 0;
    while (digits < text.size() &&
           (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.')) {
      ++digits;
    }
    auto number = ParseDouble(text.substr(0, digits));
    text.remove_prefix(digits);
    double unit = 0;
    for (auto [suffix, seconds] : {std::pair<std::string_view, double>{"ms", 1e-3},
                                   {"s", 1},
                                   {"m", 60},
                                   {"h", 3600},
                                   {"d", 86400}}) {
      if (text.substr(0, suffix.size()) == suffix) {
        unit = seconds;
        text.remove_prefix(suffix.size());
        break;
      }
    }
    if (!number || unit == 0) {
      Fail(key, "expected a duration such as 30s, 5m or 1h, got " + Describe(*value));
    }
    total += *number * unit;
    any = true;
  }
  if (!any) Fail(key, "expected a duration such as 30s, 5m or 1h, got " + Describe(*value));
  if (total < min || total > max) {
    Fail(key, "duration " + value->Scalar() + " is out of range [" + std::to_string(min) + "s, " +
                  std::to_string(max) + "s]");
  }
  return total;
}

std::vector<ConfigNode> ConfigNode::Elements(std::string_view key) const {
  std::vector<ConfigNode> out;
  if (!node_.IsMap()) return out;
  const YAML::Node& self = node_;
  YAML::Node list = self[std::string(key)];
  if (!list.IsDefined() || list.IsNull()) return out;
  if (!list.IsSequence()) Fail(key, "expected a list, got " + Describe(list));
  for (size_t i = 0; i < list.size(); ++i) {
    out.emplace_back(list[i], file_, ChildPath(key) + "[" + std::to_string(i) + "]");
  }
  return out;
}

std::optional<std::vector<std::string>> ConfigNode::StringList(std::string_view key) const {
  if (!node_.IsMap()) return std::nullopt;
  const YAML::Node& self = node_;
  YAML::Node value = self[std::string(key)];
  if (!value.IsDefined() || value.IsNull()) return std::nullopt;
  if (!value.IsSequence()) Fail(key, "expected a list of strings, got " + Describe(value));
  std::vector<std::string> out;
  for (const auto& item : value) {
    if (!item.IsScalar()) {
      throw ConfigError(MarkText(file_, item.Mark()) + ": key " + ChildPath(key) +
                        ": expected a string, got " + Describe(item));
    }
    out.push_back(item.Scalar());
  }
  return out;
}

}  // namespace fabric
