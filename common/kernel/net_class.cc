#include "common/kernel/net_class.h"

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

}  // namespace fabric
