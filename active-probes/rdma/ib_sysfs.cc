#include "active-probes/rdma/ib_sysfs.h"

#include <algorithm>
#include <tuple>

#include "common/kernel/infiniband.h"
#include "common/strings.h"

namespace fabric::probe {
namespace {

std::optional<uint64_t> ReadCounter(const AttributeDir& dir, const std::string& name,
                                    uint64_t scale = 1) {
  auto v = ReadIbCounter(dir, name);
  if (!v.ok() || !*v) return std::nullopt;
  return **v * scale;
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

Result<std::vector<RdmaPortInfo>> ListRdmaPorts(const SysRoot& root) {
  std::vector<RdmaPortInfo> out;
  auto devices = ListIbDevices(root);
  if (!devices.ok()) {
    if (devices.absent()) return out;
    return Unexpected{devices.error()};
  }
  for (const auto& dev : *devices) {
    auto ports = ListIbPorts(root, dev);
    if (!ports.ok()) continue;
    // Interfaces of the device's PCI function, for drivers without gid_attrs.
    auto pci_net = ListIbDeviceNetdevs(root, dev);
    for (const auto& port_name : *ports) {
      auto num = ParseUint64(port_name);
      if (!num) continue;
      const AttributeDir dir(IbPortPath(root, dev, port_name));
      RdmaPortInfo p;
      p.device = dev;
      p.port = static_cast<uint32_t>(*num);
      if (auto st = ReadIbState(dir, "state");
          st.ok() && *st && (*st)->code >= 0 && (*st)->code <= 7) {
        p.state = static_cast<int>((*st)->code);
        p.state_text = (*st)->name;
      }
      p.link_layer = ReadIbWord(dir, "link_layer").value_or(std::string());
      if (auto rate = ReadIbRateBytes(dir); rate.ok() && *rate) {
        p.rate_bits_per_second = **rate * 8;
      }
      p.netdevs = ListIbGidNetdevs(root, dev, port_name);
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
  const std::string name = std::to_string(port);
  const AttributeDir counters = IbCounterDir(root, device, name, IbCounterSet::kPort);
  const AttributeDir hw = IbCounterDir(root, device, name, IbCounterSet::kHw);
  PortCounters c;
  c.xmit_bytes = ReadCounter(counters, "port_xmit_data", 4);
  c.rcv_bytes = ReadCounter(counters, "port_rcv_data", 4);
  c.np_cnp_sent = ReadCounter(hw, "np_cnp_sent");
  c.rp_cnp_handled = ReadCounter(hw, "rp_cnp_handled");
  c.out_of_buffer = ReadCounter(hw, "out_of_buffer");
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
