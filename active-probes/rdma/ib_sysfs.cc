#include "active-probes/rdma/ib_sysfs.h"

#include <algorithm>
#include <tuple>

#include "common/read/file_reader.h"
#include "common/strings.h"

namespace fabric::probe {
namespace {

std::optional<uint64_t> ReadCounter(const std::string& path, uint64_t scale = 1) {
  auto text = ReadAttribute(path);
  if (!text.ok()) return std::nullopt;
  auto v = ParseUint64(TrimSpace(*text));
  if (!v) return std::nullopt;
  return *v * scale;
}

std::optional<uint64_t> Diff(const std::optional<uint64_t>& a, const std::optional<uint64_t>& b) {
  if (!a || !b || *b < *a) return std::nullopt;
  return *b - *a;
}

std::string Describe(const std::vector<RdmaPortInfo>& ports) {
  std::string out;
  for (const auto& p : ports) {
    if (!out.empty()) out += ", ";
    out += p.device + " port " + std::to_string(p.port) + " " + p.state_text;
    if (!p.netdevs.empty()) out += " on " + p.netdevs.front();
  }
  return out;
}

}  // namespace

Result<std::pair<int, std::string>> ParsePortState(std::string_view text) {
  text = TrimSpace(text);
  auto colon = text.find(':');
  if (colon == std::string_view::npos) return MakeError("port state: no ':' in " + Quote(text));
  auto n = ParseUint64(TrimSpace(text.substr(0, colon)));
  if (!n || *n > 7) return MakeError("port state: bad number in " + Quote(text));
  return std::make_pair(static_cast<int>(*n), std::string(TrimSpace(text.substr(colon + 1))));
}

Result<double> ParsePortRate(std::string_view text) {
  auto fields = SplitFields(TrimSpace(text));
  if (fields.size() < 2 || fields[1] != "Gb/sec") {
    return MakeError("port rate: expected \"N Gb/sec ...\", got " + Quote(text));
  }
  auto v = ParseDouble(fields[0]);
  if (!v || *v < 0) return MakeError("port rate: bad number in " + Quote(text));
  return *v * 1e9;
}

Result<std::vector<RdmaPortInfo>> ListRdmaPorts(const SysRoot& root) {
  std::vector<RdmaPortInfo> out;
  auto devices = ListDirectory(root.Sys("class/infiniband"));
  if (!devices.ok()) {
    if (devices.absent()) return out;
    return Unexpected{devices.error()};
  }
  for (const auto& dev : *devices) {
    std::string dev_dir = "class/infiniband/" + dev;
    auto ports = ListDirectory(root.Sys(dev_dir + "/ports"));
    if (!ports.ok()) continue;
    // Interfaces of the device's PCI function, for drivers without gid_attrs.
    auto pci_net = ListDirectory(root.Sys(dev_dir + "/device/net"));
    for (const auto& port_name : *ports) {
      auto num = ParseUint64(port_name);
      if (!num) continue;
      std::string dir = dev_dir + "/ports/" + port_name;
      RdmaPortInfo p;
      p.device = dev;
      p.port = static_cast<uint32_t>(*num);
      if (auto s = ReadAttribute(root.Sys(dir + "/state")); s.ok()) {
        if (auto st = ParsePortState(*s); st.ok()) std::tie(p.state, p.state_text) = *st;
      }
      if (auto ll = ReadAttribute(root.Sys(dir + "/link_layer")); ll.ok()) {
        p.link_layer = std::string(TrimSpace(*ll));
      }
      if (auto rate = ReadAttribute(root.Sys(dir + "/rate")); rate.ok()) {
        p.rate_bits_per_second = ParsePortRate(*rate).value_or(0.0);
      }
      if (auto ndevs = ListDirectory(root.Sys(dir + "/gid_attrs/ndevs")); ndevs.ok()) {
        for (const auto& idx : *ndevs) {
          // Unused GID slots read EINVAL/empty: skip them.
          auto name = ReadAttribute(root.Sys(dir + "/gid_attrs/ndevs/" + idx));
          if (!name.ok()) continue;
          std::string n(TrimSpace(*name));
          if (!n.empty() && std::find(p.netdevs.begin(), p.netdevs.end(), n) == p.netdevs.end()) {
            p.netdevs.push_back(n);
          }
        }
      }
      if (p.netdevs.empty() && pci_net.ok() && ports->size() == 1) p.netdevs = *pci_net;
      out.push_back(std::move(p));
    }
  }
  std::sort(out.begin(), out.end(), [](const RdmaPortInfo& a, const RdmaPortInfo& b) {
    return a.device != b.device ? a.device < b.device : a.port < b.port;
  });
  return out;
}

Result<RdmaPortInfo> SelectRdmaPort(const std::vector<RdmaPortInfo>& ports,
                                    const std::string& device, const std::string& netdev) {
  if (ports.empty()) {
    return MakeError(ErrorCode::kNoDevice, "no-device: no RDMA device (class/infiniband is empty)");
  }
  std::vector<RdmaPortInfo> candidates;
  for (const auto& p : ports) {
    if (device.empty() || p.device == device) candidates.push_back(p);
  }
  if (candidates.empty()) {
    return MakeError(ErrorCode::kNoDevice, "no-device: no RDMA device named " + Quote(device) +
                                               " (have " + Describe(ports) + ")");
  }
  if (!netdev.empty()) {
    std::vector<RdmaPortInfo> on_netdev;
    for (const auto& p : candidates) {
      if (std::find(p.netdevs.begin(), p.netdevs.end(), netdev) != p.netdevs.end()) {
        on_netdev.push_back(p);
      }
    }
    // A named device is taken at its word even if its GIDs are not on the
    // source interface (InfiniBand has no netdev); without one the interface
    // must have an RDMA port, or the traffic would not be RDMA at all.
    if (!on_netdev.empty()) {
      candidates = on_netdev;
    } else if (device.empty()) {
      return MakeError(ErrorCode::kNoDevice, "no-device: no RDMA device on interface " + netdev +
                                                 " (have " + Describe(ports) + ")");
    }
  }
  for (const auto& p : candidates) {
    if (p.active()) return p;
  }
  const auto& first = candidates.front();
  return MakeError(
      ErrorCode::kNoActivePort,
      "no-port: device " + first.device + " has no active port (" + Describe(candidates) + ")");
}

PortCounters ReadPortCounters(const SysRoot& root, const std::string& device, uint32_t port) {
  std::string dir = "class/infiniband/" + device + "/ports/" + std::to_string(port);
  PortCounters c;
  c.xmit_bytes = ReadCounter(root.Sys(dir + "/counters/port_xmit_data"), 4);
  c.rcv_bytes = ReadCounter(root.Sys(dir + "/counters/port_rcv_data"), 4);
  c.np_cnp_sent = ReadCounter(root.Sys(dir + "/hw_counters/np_cnp_sent"));
  c.rp_cnp_handled = ReadCounter(root.Sys(dir + "/hw_counters/rp_cnp_handled"));
  c.out_of_buffer = ReadCounter(root.Sys(dir + "/hw_counters/out_of_buffer"));
  return c;
}

PortCounterDelta DiffPortCounters(const PortCounters& before, const PortCounters& after) {
  PortCounterDelta d;
  d.xmit_bytes = Diff(before.xmit_bytes, after.xmit_bytes);
  d.rcv_bytes = Diff(before.rcv_bytes, after.rcv_bytes);
  d.np_cnp_sent = Diff(before.np_cnp_sent, after.np_cnp_sent);
  d.rp_cnp_handled = Diff(before.rp_cnp_handled, after.rp_cnp_handled);
  d.out_of_buffer = Diff(before.out_of_buffer, after.out_of_buffer);
  return d;
}

}  // namespace fabric::probe
