// fabric_probe fleet: writes the fleet's nodes file (fleet.nodes_file) from what a site
// already keeps: the Kubernetes node list (`kubectl get nodes -o json`) or a CSV inventory.
// Every node's exporter then reads the one file unchanged, so the fleet list exists once.
// It lives beside `ladder` because it writes the exporter's config format with the
// exporter's own parser checking it.
#include "exporter/probe_cli/fleet_command.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "active-probes/probe/error_kinds.h"
#include "common/flags.h"
#include "common/read/file_reader.h"
#include "common/strings.h"
#include "exporter/config/config_node.h"
#include "exporter/config/fleet.h"

namespace fabric::probe {
namespace {

constexpr char kHelp[] =
    "Usage: fabric_probe fleet (--from-kubernetes-nodes FILE | --from-csv FILE) [FLAGS]\n"
    "\n"
    "Writes the fleet's nodes file, the list every fabric_exporter reads through\n"
    "fleet.nodes_file, to stdout or --output. Give every node the same file.\n"
    "\n"
    "--from-kubernetes-nodes reads `kubectl get nodes -o json`: one node per item, named by\n"
    "metadata.name. Its fabric address is the --address-annotation when the node has it, else\n"
    "its status address of --address-type (the fabric is often a second network that\n"
    "Kubernetes does not list). rack, plane and role come from the labels --rack-label,\n"
    "--plane-label and --role-label name; with --role-label empty the role is the ROLE of the\n"
    "first node-role.kubernetes.io/ROLE label. A node without one of them has no such key.\n"
    "\n"
    "--from-csv reads an inventory with a header row naming the columns name, address,\n"
    "interface, mtu, rack, plane, role (name and address required; an empty cell leaves the\n"
    "key out).\n"
    "\n"
    "The list is checked as the exporter checks it (numeric addresses, no name or address\n"
    "twice) and printed with its digest, the value of fabric_fleet_digest_info on every node\n"
    "that reads it.\n"
    "\n"
    "Exit status: 0 written; 1 the input is unreadable or names an invalid node (the message\n"
    "names the file, line and key); 2 usage error.\n\n";

constexpr char kRoleLabelPrefix[] = "node-role.kubernetes.io/";

struct KubernetesOptions {
  std::string address_annotation;
  std::string address_type;
  std::string rack_label;
  std::string plane_label;
  std::string role_label;
  std::string interface;
  int mtu = 0;
};

// A label's value, or "" when the node has no such label.
std::string LabelValue(const ConfigNode& labels, const std::string& key) {
  if (key.empty() || !labels.present()) return "";
  return labels.String(key).value_or("");
}

std::vector<FleetNode> NodesFromKubernetes(const std::string& file, const KubernetesOptions& o) {
  // kubectl writes about 5 KiB per node: 1,000 nodes are several MiB.
  auto read = ReadTable(file, 256 * 1024 * 1024);
  if (!read.ok()) throw ConfigError(file + ": cannot read: " + read.error().message);
  ConfigNode root = ConfigNode::LoadString(*read, file);  // JSON is YAML: errors name file:line.
  if (root.String("kind").value_or("") != "List" &&
      root.String("kind").value_or("") != "NodeList") {
    root.Fail("kind", "expected the output of `kubectl get nodes -o json` (kind List)");
  }
  std::vector<FleetNode> nodes;
  for (const ConfigNode& item : root.Elements("items")) {
    const ConfigNode metadata = item.Child("metadata");
    FleetNode node;
    node.name = metadata.String("name").value_or("");
    if (node.name.empty()) metadata.Fail("name", "a node without a name");
    const ConfigNode labels = metadata.Child("labels");
    const ConfigNode annotations = metadata.Child("annotations");
    node.address = LabelValue(annotations, o.address_annotation);
    if (node.address.empty()) {
      for (const ConfigNode& address : item.Child("status").Elements("addresses")) {
        if (address.String("type").value_or("") == o.address_type) {
          node.address = address.String("address").value_or("");
          break;
        }
      }
    }
    if (node.address.empty()) {
      item.Fail("status", "node \"" + node.name + "\" has no " + o.address_type +
                              " address and no " + o.address_annotation + " annotation");
    }
    if (CanonicalAddress(node.address).empty()) {
      item.Fail("status", "node \"" + node.name + "\": \"" + node.address +
                              "\" is not a numeric IPv4 or IPv6 address");
    }
    node.interface = o.interface;
    node.mtu = o.mtu;
    node.rack = LabelValue(labels, o.rack_label);
    node.plane = LabelValue(labels, o.plane_label);
    if (!o.role_label.empty()) {
      node.role = LabelValue(labels, o.role_label);
    } else {
      for (const std::string& key : labels.MapKeys()) {
        if (key.rfind(kRoleLabelPrefix, 0) == 0 && key.size() > sizeof kRoleLabelPrefix - 1) {
          node.role = key.substr(sizeof kRoleLabelPrefix - 1);
          break;
        }
      }
    }
    nodes.push_back(std::move(node));
  }
  return nodes;
}

}  // namespace

int RunFleetCommand(int argc, char** argv) {
  FlagSet flags;
  flags.AddString("from-kubernetes-nodes", "FILE", "`kubectl get nodes -o json` output", "");
  flags.AddString("from-csv", "FILE", "A CSV inventory with a header row", "");
  flags.AddString("output", "FILE", "Write the nodes file here instead of stdout", "");
  flags.AddString("address-annotation", "KEY",
                  "Node annotation holding the fabric address (Kubernetes)",
                  "fabric-ladder.io/fabric-address");
  flags.AddString("address-type", "TYPE",
                  "status.addresses type used without the annotation (Kubernetes)", "InternalIP");
  flags.AddString("rack-label", "KEY", "Node label holding the rack or leaf switch (Kubernetes)",
                  "topology.kubernetes.io/zone");
  flags.AddString("plane-label", "KEY", "Node label holding the plane or rail (Kubernetes)",
                  "fabric-ladder.io/plane");
  flags.AddString("role-label", "KEY",
                  "Node label holding the role (Kubernetes; empty: node-role.kubernetes.io/ROLE)",
                  "");
  flags.AddString("interface", "IFACE", "The fabric interface of every node (Kubernetes)", "");
  flags.AddString("mtu", "N", "The expected MTU of every node (Kubernetes)", "");
  flags.AddBool("help", "Show this help", false);
  const int usage = KindOf(ErrorCode::kUsage).exit_status;
  if (auto s = flags.Parse(argc, argv); !s.ok()) {
    std::fprintf(stderr, "fabric_probe fleet: %s\n", s.error().message.c_str());
    return usage;
  }
  if (flags.GetBool("help")) {
    std::printf("%s%s", kHelp, flags.Usage().c_str());
    return 0;
  }
  const std::string kubernetes = flags.GetString("from-kubernetes-nodes");
  const std::string csv = flags.GetString("from-csv");
  if (kubernetes.empty() == csv.empty() || !flags.positional().empty()) {
    std::fprintf(stderr,
                 "fabric_probe fleet: give one of --from-kubernetes-nodes FILE and --from-csv "
                 "FILE; run fabric_probe fleet --help\n");
    return usage;
  }
  KubernetesOptions k;
  k.address_annotation = flags.GetString("address-annotation");
  k.address_type = flags.GetString("address-type");
  k.rack_label = flags.GetString("rack-label");
  k.plane_label = flags.GetString("plane-label");
  k.role_label = flags.GetString("role-label");
  k.interface = flags.GetString("interface");
  if (!flags.GetString("mtu").empty()) {
    auto mtu = ParseInt64(flags.GetString("mtu"));
    if (!mtu || *mtu < 576 || *mtu > 65535) {
      std::fprintf(stderr, "fabric_probe fleet: --mtu: expected an integer from 576 to 65535\n");
      return usage;
    }
    k.mtu = static_cast<int>(*mtu);
  }
  std::string text;
  std::vector<FleetNode> nodes;
  try {
    if (!csv.empty()) {
      auto read = ReadTable(csv, 16 * 1024 * 1024);
      if (!read.ok()) throw ConfigError(csv + ": cannot read: " + read.error().message);
      nodes = ParseFleetNodesText(*read, csv, true);
    } else {
      nodes = NodesFromKubernetes(kubernetes, k);
    }
    const std::string source =
        csv.empty() ? "--from-kubernetes-nodes " + kubernetes : "--from-csv " + csv;
    text = FormatFleetNodesYaml(
        nodes, {"The fleet's nodes file (fleet.nodes_file): give every node this same file.",
                "Written by fabric_probe fleet " + source + ".",
                std::to_string(nodes.size()) + " nodes, digest " + FleetDigest(nodes) + "."});
    // What the exporter will read: the same checks (no name or address twice, ...).
    nodes = ParseFleetNodesText(text, source, false);
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "fabric_probe fleet: %s\n", e.what());
    return 1;
  }
  if (nodes.empty()) {
    std::fprintf(stderr, "fabric_probe fleet: the input lists no node\n");
    return 1;
  }
  const std::string output = flags.GetString("output");
  if (output.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    std::ofstream out(output, std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      std::fprintf(stderr, "fabric_probe fleet: cannot write %s\n", output.c_str());
      return 1;
    }
  }
  std::fprintf(stderr, "fabric_probe fleet: %zu nodes, digest %s\n", nodes.size(),
               FleetDigest(nodes).c_str());
  return 0;
}

}  // namespace fabric::probe
