// Decoding of the PCI Express capability registers (PCIe Base Spec 7.5.3):
// the raw values the libpci backend reads from config space become port type,
// link capability/status and slot data. Pure, so tests feed hand-built
// register values.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace fabric {

// Raw registers of one device's Express capability; fields the device does
// not implement are zero (LnkCap2 before capability version 2, SltCap
// without a slot).
struct ExpressRegisters {
  uint16_t flags = 0;        // PCI_EXP_FLAGS (offset 0x02)
  uint32_t link_cap = 0;     // LnkCap (0x0c)
  uint16_t link_status = 0;  // LnkSta (0x12)
  uint32_t slot_cap = 0;     // SltCap (0x14)
  uint32_t link_cap2 = 0;    // LnkCap2 (0x2c)
};

// Device/Port Type (PCI_EXP_FLAGS_TYPE).
enum class PciePortType {
  kEndpoint = 0x0,
  kLegacyEndpoint = 0x1,
  kRootPort = 0x4,
  kUpstreamPort = 0x5,
  kDownstreamPort = 0x6,
  kPcieToPciBridge = 0x7,
  kPciToPcieBridge = 0x8,
  kRootComplexEndpoint = 0x9,
  kRootComplexEventCollector = 0xa,
};

struct ExpressInfo {
  int version = 0;
  int port_type = 0;  // PciePortType value; unknown values kept as read.
  std::optional<double> max_speed_gts;
  std::optional<int> max_width;
  std::optional<double> current_speed_gts;
  std::optional<int> current_width;
  bool slot_implemented = false;
  std::optional<uint32_t> physical_slot;
  std::optional<double> slot_power_limit_watts;
};

ExpressInfo DecodeExpress(const ExpressRegisters& regs);

// The link speed encoding of LnkCap/LnkSta (1 = 2.5 GT/s ... 6 = 64 GT/s);
// nullopt for 0 and reserved codes.
std::optional<double> LinkSpeedCodeToGts(uint32_t code);

// "root_port", "endpoint", ...; "unknown" for reserved values.
std::string_view PortTypeName(int port_type);

// True for ports at the downstream end of a link (they face the root): an
// endpoint, a switch upstream port, a PCIe-to-PCI bridge. Their link
// registers describe the link to their parent.
bool IsUpstreamFacing(int port_type);

}  // namespace fabric
