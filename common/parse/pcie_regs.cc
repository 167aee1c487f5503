#include "common/parse/pcie_regs.h"

#include <cmath>

namespace fabric {

std::optional<double> LinkSpeedCodeToGts(uint32_t code) {
  switch (code) {
    case 1:
      return 2.5;
    case 2:
      return 5.0;
    case 3:
      return 8.0;
    case 4:
      return 16.0;
    case 5:
      return 32.0;
    case 6:
      return 64.0;
    default:
      return std::nullopt;
  }
}

ExpressInfo DecodeExpress(const ExpressRegisters& regs) {
  ExpressInfo info;
  info.version = regs.flags & 0xf;
  info.port_type = (regs.flags >> 4) & 0xf;
  info.slot_implemented = (regs.flags & 0x0100) != 0;

  // LnkCap2's Supported Link Speeds Vector (bits 7:1) is authoritative when
  // present: the Max Link Speed field only indexes into it (spec 7.5.3.6).
  uint32_t speeds = (regs.link_cap2 >> 1) & 0x7f;
  if (speeds != 0) {
    int highest = 0;
    for (int bit = 0; bit < 7; ++bit) {
      if (speeds & (1u << bit)) highest = bit + 1;
    }
    info.max_speed_gts = LinkSpeedCodeToGts(static_cast<uint32_t>(highest));
  } else {
    info.max_speed_gts = LinkSpeedCodeToGts(regs.link_cap & 0xf);
  }
  if (int w = static_cast<int>((regs.link_cap >> 4) & 0x3f); w > 0) info.max_width = w;
  info.current_speed_gts = LinkSpeedCodeToGts(regs.link_status & 0xf);
  if (int w = (regs.link_status >> 4) & 0x3f; w > 0) info.current_width = w;

  if (info.slot_implemented) {
    info.physical_slot = regs.slot_cap >> 19;
    uint32_t value = (regs.slot_cap >> 7) & 0xff;
    uint32_t scale = (regs.slot_cap >> 15) & 0x3;
    // Values above 0xef with scale 0 encode 250-600 W (spec 7.5.3.9).
    if (scale == 0 && value >= 0xf0) {
      static constexpr double kHigh[] = {250, 275, 300};
      info.slot_power_limit_watts = value <= 0xf2 ? kHigh[value - 0xf0] : 300;
    } else {
      info.slot_power_limit_watts = value * std::pow(10.0, -static_cast<int>(scale));
    }
  }
  return info;
}

std::string_view PortTypeName(int port_type) {
  switch (static_cast<PciePortType>(port_type)) {
    case PciePortType::kEndpoint:
      return "endpoint";
    case PciePortType::kLegacyEndpoint:
      return "legacy_endpoint";
    case PciePortType::kRootPort:
      return "root_port";
    case PciePortType::kUpstreamPort:
      return "switch_upstream_port";
    case PciePortType::kDownstreamPort:
      return "switch_downstream_port";
    case PciePortType::kPcieToPciBridge:
      return "pcie_to_pci_bridge";
    case PciePortType::kPciToPcieBridge:
      return "pci_to_pcie_bridge";
    case PciePortType::kRootComplexEndpoint:
      return "root_complex_endpoint";
    case PciePortType::kRootComplexEventCollector:
      return "root_complex_event_collector";
  }
  return "unknown";
}

bool IsUpstreamFacing(int port_type) {
  switch (static_cast<PciePortType>(port_type)) {
    case PciePortType::kEndpoint:
    case PciePortType::kLegacyEndpoint:
    case PciePortType::kUpstreamPort:
    case PciePortType::kPcieToPciBridge:
      return true;
    default:
      return false;
  }
}

}  // namespace fabric
