#include "common/kernel/net_class.h"

#include <algorithm>

#include "common/parse/cpu_list_parse.h"
#include "common/parse/sysctl_parse.h"
#include "common/strings.h"

namespace fabric {

Result<std::vector<std::string>> ListNetInterfaces(const SysRoot& root) {
  return ListDirectory(root.Sys("class/net"));
}

AttributeDir NetInterfaceDir(const SysRoot& root, const std::string& ifname) {
  return AttributeDir(root.Sys("class/net/" + ifname));
}

AttributeDir NetStatisticsDir(const AttributeDir& interface_dir) {
  return AttributeDir(interface_dir.path() + "/statistics");
}

Result<std::optional<int64_t>> ReadNetInt(const AttributeDir& dir, const std::string& file) {
  auto text = dir.Read(file);
  if (text.absent()) return std::optional<int64_t>{};
  if (!text.ok()) return Unexpected{text.error()};
  auto v = ParseSysctlInt(*text, dir.path() + "/" + file);
  if (!v.ok()) return Unexpected{v.error()};
  return std::optional<int64_t>{*v};
}

Result<std::optional<std::string>> ReadNetWord(const AttributeDir& dir, const std::string& file) {
  auto text = dir.Read(file);
  if (text.absent()) return std::optional<std::string>{};
  if (!text.ok()) return Unexpected{text.error()};
  return std::optional<std::string>{std::string(TrimSpace(*text))};
}

std::optional<NetByteCounters> ReadNetByteCounters(const SysRoot& root, const std::string& ifname) {
  if (ifname.empty()) return std::nullopt;
  const AttributeDir statistics = NetStatisticsDir(NetInterfaceDir(root, ifname));
  auto rx = ReadNetInt(statistics, "rx_bytes");
  auto tx = ReadNetInt(statistics, "tx_bytes");
  if (!rx.ok() || !tx.ok() || !*rx || !*tx || **rx < 0 || **tx < 0) return std::nullopt;
  return NetByteCounters{static_cast<uint64_t>(**rx), static_cast<uint64_t>(**tx)};
}

std::optional<int64_t> ReadNetSpeedMbps(const SysRoot& root, const std::string& ifname) {
  if (ifname.empty()) return std::nullopt;
  auto speed = ReadNetInt(NetInterfaceDir(root, ifname), "speed");
  if (!speed.ok() || !*speed || **speed <= 0) return std::nullopt;
  return **speed;
}

Result<NetQueues> ListNetQueues(const AttributeDir& interface_dir) {
  auto names = ListDirectory(interface_dir.path() + "/queues");
  if (!names.ok()) return Unexpected{names.error()};
  NetQueues queues;
  std::vector<std::pair<uint64_t, std::string>> rx, tx;
  for (const auto& name : *names) {
    const bool is_rx = StartsWith(name, "rx-");
    if (!is_rx && !StartsWith(name, "tx-")) continue;
    auto n = ParseUint64(std::string_view(name).substr(3));
    if (!n) continue;
    (is_rx ? rx : tx).emplace_back(*n, name);
  }
  std::sort(rx.begin(), rx.end());
  std::sort(tx.begin(), tx.end());
  for (auto& [n, name] : rx) queues.rx.push_back(std::move(name));
  for (auto& [n, name] : tx) queues.tx.push_back(std::move(name));
  return queues;
}

Result<std::optional<std::vector<int>>> ReadNetQueueCpus(const AttributeDir& interface_dir,
                                                         const std::string& queue,
                                                         const std::string& file) {
  auto text = interface_dir.Read("queues/" + queue + "/" + file);
  if (text.absent()) return std::optional<std::vector<int>>();
  if (!text.ok()) return Unexpected{text.error()};
  auto cpus = ParseCpuMask(*text);
  if (!cpus.ok()) {
    return MakeError(interface_dir.path() + "/queues/" + queue + "/" + file + ": " +
                     cpus.error().message);
  }
  return std::optional<std::vector<int>>(std::move(*cpus));
}

Result<std::vector<int>> ListNetDeviceIrqs(const AttributeDir& interface_dir) {
  auto names = ListDirectory(interface_dir.path() + "/device/msi_irqs");
  if (!names.ok()) return Unexpected{names.error()};
  std::vector<int> irqs;
  for (const auto& name : *names) {
    auto n = ParseUint64(name);
    if (n && *n < (uint64_t{1} << 31)) irqs.push_back(static_cast<int>(*n));
  }
  std::sort(irqs.begin(), irqs.end());
  return irqs;
}

}  // namespace fabric
