#include "exporter/config/fleet.h"

#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "common/json.h"
#include "common/parse/csv_table_parse.h"
#include "common/read/file_reader.h"
#include "common/strings.h"
#include "exporter/config/sha256.h"

namespace fabric {
namespace {

// A nodes file of 1,000 nodes is about 100 KiB in either format.
constexpr size_t kMaxNodesFileBytes = 16 * 1024 * 1024;

std::string HostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "";
  std::string name = buf;
  return name.substr(0, name.find('.'));
}

// One node's keys as a source holds them: a YAML mapping or a CSV row. The
// validation below is the same for both; only where an error points differs.
class NodeFields {
 public:
  virtual ~NodeFields() = default;
  virtual std::optional<std::string> String(std::string_view key) const = 0;
  virtual std::optional<int64_t> Int(std::string_view key, int64_t min, int64_t max) const = 0;
  [[noreturn]] virtual void Fail(std::string_view key, const std::string& problem) const = 0;
};

class YamlNodeFields : public NodeFields {
 public:
  explicit YamlNodeFields(const ConfigNode& node) : node_(node) {
    node_.ExpectMapWithKeys(
        std::vector<std::string_view>(std::begin(kFleetNodeKeys), std::end(kFleetNodeKeys)));
  }
  std::optional<std::string> String(std::string_view key) const override {
    return node_.String(key);
  }
  std::optional<int64_t> Int(std::string_view key, int64_t min, int64_t max) const override {
    return node_.Int(key, min, max);
  }
  [[noreturn]] void Fail(std::string_view key, const std::string& problem) const override {
    node_.Fail(key, problem);
  }

 private:
  const ConfigNode& node_;
};

// An empty cell is an absent key: a CSV row cannot leave a column out.
class CsvNodeFields : public NodeFields {
 public:
  CsvNodeFields(const CsvRow& row, const std::string& file) : row_(row), file_(file) {}
  std::optional<std::string> String(std::string_view key) const override {
    auto it = row_.cells.find(std::string(key));
    if (it == row_.cells.end() || it->second.value.empty()) return std::nullopt;
    return it->second.value;
  }
  std::optional<int64_t> Int(std::string_view key, int64_t min, int64_t max) const override {
    auto text = String(key);
    if (!text) return std::nullopt;
    auto parsed = ParseInt64(*text);
    if (!parsed) Fail(key, "expected an integer, got " + Quote(*text));
    if (*parsed < min || *parsed > max) {
      Fail(key, "value " + std::to_string(*parsed) + " is out of range [" + std::to_string(min) +
                    ", " + std::to_string(max) + "]");
    }
    return parsed;
  }
  [[noreturn]] void Fail(std::string_view key, const std::string& problem) const override {
    auto it = row_.cells.find(std::string(key));
    const int column = it == row_.cells.end() ? 1 : it->second.column;
    throw ConfigError(file_ + ":" + std::to_string(row_.line) + ":" + std::to_string(column) +
                      ": column " + std::string(key) + ": " + problem);
  }

 private:
  const CsvRow& row_;
  const std::string& file_;
};

// Builds the list node by node, refusing what no plan can use.
class NodeListBuilder {
 public:
  void Add(const NodeFields& fields) {
    auto name = fields.String("name");
    auto address = fields.String("address");
    if (!name || name->empty()) fields.Fail("name", "every node needs a name");
    if (!address) fields.Fail("address", "every node needs its fabric address");
    if (CanonicalAddress(*address).empty()) {
      fields.Fail("address", "\"" + *address + "\" is not a numeric IPv4 or IPv6 address");
    }
    if (!names_.insert(*name).second) {
      fields.Fail("name", "node \"" + *name + "\" is listed twice");
    }
    if (!addresses_.insert(CanonicalAddress(*address)).second) {
      fields.Fail("address", "address " + *address + " is listed twice");
    }
    FleetNode n;
    n.name = *name;
    n.address = *address;
    n.interface = fields.String("interface").value_or("");
    n.mtu = static_cast<int>(fields.Int("mtu", 576, 65535).value_or(0));
    // Topology keys become label values; an empty one would read as "not
    // configured" there, so it is refused rather than silently dropped.
    for (auto [key, field] :
         {std::pair{"rack", &n.rack}, std::pair{"plane", &n.plane}, std::pair{"role", &n.role}}) {
      auto value = fields.String(key);
      if (value && value->empty()) {
        fields.Fail(key, "must not be empty (leave the key out instead)");
      }
      *field = value.value_or("");
    }
    nodes_.push_back(std::move(n));
  }

  std::vector<FleetNode> Sorted() && {
    std::sort(nodes_.begin(), nodes_.end(),
              [](const FleetNode& a, const FleetNode& b) { return a.name < b.name; });
    return std::move(nodes_);
  }

 private:
  std::set<std::string> names_, addresses_;
  std::vector<FleetNode> nodes_;
};

std::vector<FleetNode> ParseYamlNodes(const ConfigNode& list_holder) {
  NodeListBuilder builder;
  for (const ConfigNode& node : list_holder.Elements("nodes")) builder.Add(YamlNodeFields(node));
  return std::move(builder).Sorted();
}

std::vector<FleetNode> ParseCsvNodes(const std::string& text, const std::string& file) {
  auto table = ParseCsvTable(text, file);
  if (!table.ok()) throw ConfigError(table.error().message);
  for (const std::string& name : table->header) {
    if (std::find(std::begin(kFleetNodeKeys), std::end(kFleetNodeKeys), name) ==
        std::end(kFleetNodeKeys)) {
      std::string known;
      for (auto key : kFleetNodeKeys) known += (known.empty() ? "" : ", ") + std::string(key);
      throw ConfigError(file + ":" + std::to_string(table->header_line) + ": column " + name +
                        ": unknown column (known: " + known + ")");
    }
  }
  NodeListBuilder builder;
  for (const CsvRow& row : table->rows) builder.Add(CsvNodeFields(row, file));
  return std::move(builder).Sorted();
}

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// `nodes_file` as written, resolved against the directory of the config
// file that names it.
std::string ResolveNodesFile(const ConfigNode& section, const std::string& path) {
  std::filesystem::path p(path);
  if (p.is_absolute()) return path;
  return (std::filesystem::path(section.file()).parent_path() / p).lexically_normal().string();
}

}  // namespace

std::string CanonicalAddress(const std::string& address) {
  in_addr v4;
  in6_addr v6;
  char text[INET6_ADDRSTRLEN] = {};
  if (inet_pton(AF_INET, address.c_str(), &v4) == 1) {
    return inet_ntop(AF_INET, &v4, text, sizeof text) != nullptr ? text : "";
  }
  if (inet_pton(AF_INET6, address.c_str(), &v6) == 1) {
    return inet_ntop(AF_INET6, &v6, text, sizeof text) != nullptr ? text : "";
  }
  return "";
}

size_t Fleet::SelfIndex() const {
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].name == self) return i;
  }
  return 0;  // ParseFleet guarantees self is listed.
}

std::string FleetDigest(const std::vector<FleetNode>& nodes) {
  std::vector<const FleetNode*> sorted;
  sorted.reserve(nodes.size());
  for (const FleetNode& node : nodes) sorted.push_back(&node);
  std::sort(sorted.begin(), sorted.end(),
            [](const FleetNode* a, const FleetNode* b) { return a->name < b->name; });
  // Each value length-prefixed, so no value can imitate a separator.
  std::string canonical = "fabric-ladder fleet v1\n";
  for (const FleetNode* node : sorted) {
    for (const std::string& value : {node->name, CanonicalAddress(node->address), node->interface,
                                     node->mtu > 0 ? std::to_string(node->mtu) : std::string(),
                                     node->rack, node->plane, node->role}) {
      canonical += std::to_string(value.size()) + ":" + value + ";";
    }
    canonical += "\n";
  }
  return Sha256Hex(canonical).substr(0, 16);
}

std::string FormatFleetNodesYaml(const std::vector<FleetNode>& nodes,
                                 const std::vector<std::string>& comment) {
  std::string out;
  for (const std::string& line : comment) out += "# " + line + "\n";
  out += "nodes:\n";
  for (const FleetNode& node : nodes) {
    // JSON strings are YAML double-quoted scalars: any name survives the round trip.
    out += "  - {name: " + JsonString(node.name) + ", address: " + JsonString(node.address);
    if (!node.interface.empty()) out += ", interface: " + JsonString(node.interface);
    if (node.mtu > 0) out += ", mtu: " + std::to_string(node.mtu);
    for (auto [key, value] : {std::pair{"rack", &node.rack}, std::pair{"plane", &node.plane},
                              std::pair{"role", &node.role}}) {
      if (!value->empty()) out += std::string(", ") + key + ": " + JsonString(*value);
    }
    out += "}\n";
  }
  return out;
}

std::vector<FleetNode> ParseFleetNodesText(const std::string& text, const std::string& file,
                                           bool csv) {
  if (csv) return ParseCsvNodes(text, file);
  ConfigNode root = ConfigNode::LoadString(text, file);
  root.ExpectMapWithKeys({"nodes"});
  if (!root.present() || !root.Child("nodes").present()) {
    throw ConfigError(file + ": key nodes: a nodes file holds a top-level `nodes:` list");
  }
  return ParseYamlNodes(root);
}

std::optional<Fleet> ParseFleet(const ConfigNode& section) {
  if (!section.present()) return std::nullopt;
  section.ExpectMapWithKeys({"self", "nodes", "nodes_file"});
  Fleet fleet;
  fleet.self = section.String("self").value_or(HostName());
  auto nodes_file = section.String("nodes_file");
  if (nodes_file && section.Child("nodes").present()) {
    section.Fail("nodes_file", "give the list inline (nodes) or in a file (nodes_file), not both");
  }
  if (nodes_file) {
    if (nodes_file->empty()) section.Fail("nodes_file", "must name a file");
    fleet.nodes_file = ResolveNodesFile(section, *nodes_file);
    auto text = ReadTable(fleet.nodes_file, kMaxNodesFileBytes);
    if (!text.ok()) {
      section.Fail("nodes_file", "cannot read the nodes file: " + text.error().message);
    }
    fleet.nodes = ParseFleetNodesText(*text, fleet.nodes_file, EndsWith(*nodes_file, ".csv"));
    if (fleet.nodes.empty()) {
      throw ConfigError(fleet.nodes_file + ": key nodes: list at least this node");
    }
  } else {
    fleet.nodes = ParseYamlNodes(section);
    if (fleet.nodes.empty()) section.Fail("nodes", "list at least this node");
  }
  if (std::none_of(fleet.nodes.begin(), fleet.nodes.end(),
                   [&](const FleetNode& n) { return n.name == fleet.self; })) {
    section.Fail("self", "this node \"" + fleet.self + "\" is not in " +
                             (nodes_file ? fleet.nodes_file : std::string("fleet.nodes")) +
                             " (set fleet.self to its name there)");
  }
  fleet.digest = FleetDigest(fleet.nodes);
  return fleet;
}

}  // namespace fabric
