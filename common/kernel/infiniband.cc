#include "common/kernel/infiniband.h"

#include <algorithm>

#include "common/parse/sysctl_parse.h"
#include "common/strings.h"

namespace fabric {

Result<std::vector<std::string>> ListIbDevices(const SysRoot& root) {
  return ListDirectory(root.Sys("class/infiniband"));
}

std::string IbDevicePath(const SysRoot& root, const std::string& device) {
  return root.Sys("class/infiniband/" + device);
}

std::string IbDevicePciAddress(const SysRoot& root, const std::string& device) {
  auto link = ReadLink(IbDevicePath(root, device) + "/device");
  return link.ok() ? PciAddressInPath(*link) : std::string();
}

Result<std::vector<std::string>> ListIbPorts(const SysRoot& root, const std::string& device) {
  return ListDirectory(IbDevicePath(root, device) + "/ports");
}

std::string IbPortPath(const SysRoot& root, const std::string& device, const std::string& port) {
  return IbDevicePath(root, device) + "/ports/" + port;
}

AttributeDir IbCounterDir(const SysRoot& root, const std::string& device, const std::string& port,
                          IbCounterSet set) {
  return AttributeDir(IbPortPath(root, device, port) +
                      (set == IbCounterSet::kPort ? "/counters" : "/hw_counters"));
}

Result<std::string> ReadIbWord(const AttributeDir& dir, const std::string& name) {
  auto text = dir.Read(name);
  if (text.absent()) return std::string();
  if (!text.ok()) return Unexpected{text.error()};
  return std::string(TrimSpace(*text));
}

Result<std::optional<IbStateValue>> ReadIbState(const AttributeDir& port_dir,
                                                const std::string& name) {
  auto text = port_dir.Read(name);
  if (text.absent()) return std::optional<IbStateValue>();
  if (!text.ok()) return Unexpected{text.error()};
  auto state = ParseIbState(*text, port_dir.path() + "/" + name);
  if (!state.ok()) return Unexpected{state.error()};
  return std::optional<IbStateValue>(std::move(*state));
}

Result<std::optional<double>> ReadIbRateBytes(const AttributeDir& port_dir) {
  auto text = port_dir.Read("rate");
  if (text.absent()) return std::optional<double>();
  if (!text.ok()) return Unexpected{text.error()};
  auto rate = ParseIbRateBytes(*text, port_dir.path() + "/rate");
  if (!rate.ok()) return Unexpected{rate.error()};
  return std::optional<double>(*rate);
}

Result<std::optional<uint64_t>> ReadIbCounter(const AttributeDir& counter_dir,
                                              const std::string& name) {
  auto text = counter_dir.Read(name);
  if (text.absent()) return std::optional<uint64_t>();
  if (!text.ok()) return Unexpected{text.error()};
  auto v = ParseSysctlInt(*text, counter_dir.path() + "/" + name);
  if (!v.ok()) return Unexpected{v.error()};
  if (*v < 0) return MakeError(counter_dir.path() + "/" + name + ": negative counter");
  return std::optional<uint64_t>(static_cast<uint64_t>(*v));
}

Result<std::string> ReadIbGidNetdev(const AttributeDir& port_dir, int index) {
  return ReadIbWord(port_dir, "gid_attrs/ndevs/" + std::to_string(index));
}

std::vector<std::string> ListIbGidNetdevs(const SysRoot& root, const std::string& device,
                                          const std::string& port) {
  std::vector<std::string> out;
  const std::string dir = IbPortPath(root, device, port) + "/gid_attrs/ndevs";
  auto slots = ListDirectory(dir);
  if (!slots.ok()) return out;
  for (const auto& slot : *slots) {
    // Unused GID slots read EINVAL or empty: skip them.
    auto name = ReadAttribute(dir + "/" + slot);
    if (!name.ok()) continue;
    std::string n(TrimSpace(*name));
    if (!n.empty() && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  return out;
}

Result<std::vector<std::string>> ListIbDeviceNetdevs(const SysRoot& root,
                                                     const std::string& device) {
  return ListDirectory(IbDevicePath(root, device) + "/device/net");
}

}  // namespace fabric
