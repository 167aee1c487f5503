#include "common/kernel/numa.h"

#include "common/parse/cpu_list_parse.h"
#include "common/read/file_reader.h"
#include "common/strings.h"

namespace fabric {

std::optional<int> NetDeviceNumaNode(const SysRoot& root, const std::string& ifname) {
  if (ifname.empty()) return std::nullopt;
  auto text = ReadAttribute(root.Sys("class/net/" + ifname + "/device/numa_node"));
  if (!text.ok()) return std::nullopt;
  auto node = ParseInt64(TrimSpace(*text));
  if (!node || *node < 0 || *node > 65535) return std::nullopt;
  return static_cast<int>(*node);
}

Result<std::vector<int>> NumaNodeCpus(const SysRoot& root, int node) {
  auto list =
      ReadAttribute(root.Sys("devices/system/node/node" + std::to_string(node) + "/cpulist"));
  if (!list.ok()) return Unexpected{list.error()};
  return ParseCpuList(*list);
}

std::vector<int> NetDeviceNumaCpus(const SysRoot& root, const std::string& ifname) {
  auto node = NetDeviceNumaNode(root, ifname);
  if (!node) return {};
  auto cpus = NumaNodeCpus(root, *node);
  return cpus.ok() ? *cpus : std::vector<int>{};
}

Result<std::map<int, int>> CpuNumaNodes(const SysRoot& root) {
  auto names = ListDirectory(root.Sys("devices/system/node"));
  if (!names.ok()) return Unexpected{names.error()};
  std::map<int, int> out;
  for (const auto& name : *names) {
    if (!StartsWith(name, "node")) continue;
    auto node = ParseUint64(std::string_view(name).substr(4));
    if (!node || *node > 65535) continue;  // has_cpu, online, possible, ...
    auto cpus = NumaNodeCpus(root, static_cast<int>(*node));
    if (cpus.absent()) continue;
    if (!cpus.ok()) return Unexpected{cpus.error()};
    for (int cpu : *cpus) out[cpu] = static_cast<int>(*node);
  }
  return out;
}

}  // namespace fabric
