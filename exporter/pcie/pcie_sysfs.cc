#include "exporter/pcie/pcie_sysfs.h"

#include "common/read/file_reader.h"
#include "common/strings.h"

namespace fabric {
namespace {

std::string DevicePath(const SysRoot& root, const std::string& address, std::string_view attr) {
  return root.Sys("bus/pci/devices/" + address + "/" + std::string(attr));
}

// Reads an optional attribute: nullopt when absent, error when unreadable.
Result<std::optional<std::string>> ReadOptional(const std::string& path) {
  auto text = ReadAttribute(path);
  if (text.absent()) return std::optional<std::string>();
  if (!text.ok()) return Unexpected{text.error()};
  return std::optional<std::string>(std::move(*text));
}

Result<std::optional<uint32_t>> ReadHex(const std::string& path) {
  auto text = ReadOptional(path);
  if (!text.ok()) return Unexpected{text.error()};
  if (!*text) return std::optional<uint32_t>();
  auto id = ParseHexId(**text, path);
  if (!id.ok()) return Unexpected{id.error()};
  return std::optional<uint32_t>(*id);
}

std::string Basename(std::string_view path) {
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace

Result<std::map<std::string, PciDeviceEntry>> ListPciDevices(
    const SysRoot& root, std::map<std::string, Error>* device_errors) {
  auto names = ListDirectory(root.Sys("bus/pci/devices"));
  if (!names.ok()) return Unexpected{names.error()};
  std::map<std::string, PciDeviceEntry> out;
  for (const auto& name : *names) {
    if (!IsPciAddress(name)) continue;
    PciDeviceEntry entry;
    entry.address = name;
    auto target = ReadLink(root.Sys("bus/pci/devices/" + name));
    if (target.ok()) {
      auto chain = PciAddressesInPath(*target);
      if (chain.size() >= 2 && chain.back() == name) entry.parent = chain[chain.size() - 2];
    } else if (!target.absent()) {
      if (device_errors == nullptr) return Unexpected{target.error()};
      (*device_errors)[name] = target.error();
      continue;
    }
    auto class_code = ReadHex(DevicePath(root, name, "class"));
    if (!class_code.ok()) {
      if (device_errors == nullptr) return Unexpected{class_code.error()};
      (*device_errors)[name] = class_code.error();
      continue;
    }
    entry.class_code = class_code->value_or(0);
    entry.virtual_function = ReadLink(DevicePath(root, name, "physfn")).ok();
    out.emplace(name, std::move(entry));
  }
  return out;
}

Result<PciDeviceDetails> ReadPciDeviceDetails(const SysRoot& root, const std::string& address) {
  PciDeviceDetails d;
  struct IdAttr {
    const char* name;
    std::optional<uint32_t>* out;
  };
  for (const auto& [name, out] : {IdAttr{"vendor", &d.vendor}, IdAttr{"device", &d.device},
                                  IdAttr{"subsystem_vendor", &d.subsystem_vendor},
                                  IdAttr{"subsystem_device", &d.subsystem_device}}) {
    auto id = ReadHex(DevicePath(root, address, name));
    if (!id.ok()) return Unexpected{id.error()};
    *out = *id;
  }
  if (auto driver = ReadLink(DevicePath(root, address, "driver")); driver.ok()) {
    d.driver = Basename(*driver);
  }
  auto numa = ReadOptional(DevicePath(root, address, "numa_node"));
  if (!numa.ok()) return Unexpected{numa.error()};
  if (*numa) d.numa_node = std::string(TrimSpace(**numa));

  struct SpeedAttr {
    const char* name;
    std::optional<double>* out;
  };
  for (const auto& [name, out] : {SpeedAttr{"current_link_speed", &d.link.current_speed_gts},
                                  SpeedAttr{"max_link_speed", &d.link.max_speed_gts}}) {
    std::string path = DevicePath(root, address, name);
    auto text = ReadOptional(path);
    if (!text.ok()) return Unexpected{text.error()};
    if (!*text) continue;
    auto speed = ParseLinkSpeed(**text, path);
    if (!speed.ok()) return Unexpected{speed.error()};
    *out = *speed;
  }
  struct WidthAttr {
    const char* name;
    std::optional<int>* out;
  };
  for (const auto& [name, out] : {WidthAttr{"current_link_width", &d.link.current_width},
                                  WidthAttr{"max_link_width", &d.link.max_width}}) {
    std::string path = DevicePath(root, address, name);
    auto text = ReadOptional(path);
    if (!text.ok()) return Unexpected{text.error()};
    if (!*text) continue;
    auto width = ParseLinkWidth(**text, path);
    if (!width.ok()) return Unexpected{width.error()};
    *out = *width;
  }
  return d;
}

Result<PciAer> ReadPciAer(const SysRoot& root, const std::string& address) {
  static constexpr const char* kAerFiles[] = {"aer_dev_correctable", "aer_dev_nonfatal",
                                              "aer_dev_fatal"};
  static constexpr const char* kRootportFiles[] = {"aer_rootport_total_err_cor",
                                                   "aer_rootport_total_err_nonfatal",
                                                   "aer_rootport_total_err_fatal"};
  PciAer aer;
  for (size_t i = 0; i < 3; ++i) {
    std::string path = DevicePath(root, address, kAerFiles[i]);
    auto text = ReadOptional(path);
    if (!text.ok()) return Unexpected{text.error()};
    if (*text) {
      auto counters = ParseAerCounters(**text, path);
      if (!counters.ok()) return Unexpected{counters.error()};
      aer.dev[i] = std::move(*counters);
    }
    path = DevicePath(root, address, kRootportFiles[i]);
    auto total = ReadOptional(path);
    if (!total.ok()) return Unexpected{total.error()};
    if (*total) {
      auto value = ParseUint64(TrimSpace(**total));
      if (!value) return MakeError(path + ": not a counter: " + Quote(**total));
      aer.rootport[i] = *value;
    }
  }
  return aer;
}

Result<PciLinkAspm> ReadPciLinkAspm(const SysRoot& root, const std::string& address) {
  PciLinkAspm aspm;
  for (const char* state : {"l0s", "l1", "l1_1", "l1_2"}) {
    std::string path = DevicePath(root, address, std::string("link/") + state + "_aspm");
    auto text = ReadOptional(path);
    if (!text.ok()) return Unexpected{text.error()};
    if (!*text) continue;
    std::string_view v = TrimSpace(**text);
    if (v != "0" && v != "1") return MakeError(path + ": expected 0 or 1, got " + Quote(v));
    aspm.emplace_back(state, v == "1");
  }
  return aspm;
}

Result<std::string> ReadAspmPolicy(const SysRoot& root) {
  const std::string path = root.Sys("module/pcie_aspm/parameters/policy");
  auto text = ReadAttribute(path);
  if (!text.ok()) return Unexpected{text.error()};
  return ParseAspmPolicy(*text, path);
}

Result<std::map<std::string, std::vector<std::string>>> ReadBoundNames(const SysRoot& root,
                                                                       const char* class_dir) {
  std::map<std::string, std::vector<std::string>> out;
  auto names = ListDirectory(root.Sys(class_dir));
  if (names.absent()) return out;
  if (!names.ok()) return Unexpected{names.error()};
  for (const auto& name : *names) {
    auto target = ReadLink(root.Sys(std::string(class_dir) + "/" + name));
    if (!target.ok()) continue;  // Not a link: not a device we can place.
    auto chain = PciAddressesInPath(*target);
    if (!chain.empty()) out[chain.back()].push_back(name);
  }
  return out;
}

}  // namespace fabric
