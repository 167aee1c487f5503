// sysfs value parsers: InfiniBand port state and rate, PCIe link speed/width, ids, addresses, AER
// counters, the Express capability decoder, block stat files, NVMe-oF addresses, and the number
// parsers underneath them all.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "common/parse/block_stat_parse.h"
#include "common/parse/nvme_address_parse.h"
#include "common/parse/pcie_regs.h"
#include "common/parse/pcie_sysfs_parse.h"
#include "common/parse/sysfs_values.h"
#include "common/strings.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto in = fabric::fuzz::Split(data, size, 10);
  switch (in.selector) {
    case 0:
      (void)fabric::ParseIbState(in.text, "state");
      break;
    case 1:
      (void)fabric::ParseIbRateBytes(in.text, "rate");
      break;
    case 2:
      (void)fabric::ParseLinkSpeed(in.text, "current_link_speed");
      (void)fabric::ParseLinkWidth(in.text, "current_link_width");
      break;
    case 3:
      (void)fabric::ParseHexId(in.text, "vendor");
      (void)fabric::ParsePciAddress(in.text);
      (void)fabric::PciAddressInPath(in.text);
      (void)fabric::PciAddressesInPath(in.text);
      (void)fabric::IsPciAddress(in.text);
      break;
    case 4:
      (void)fabric::ParseAerCounters(in.text, "aer_dev_correctable");
      break;
    case 5: {
      fabric::ExpressRegisters regs;
      std::memcpy(&regs.flags, in.text.data(), std::min(in.text.size(), sizeof(regs.flags)));
      if (in.text.size() >= 14) {
        std::memcpy(&regs.link_cap, in.text.data() + 2, 4);
        std::memcpy(&regs.link_status, in.text.data() + 6, 2);
        std::memcpy(&regs.slot_cap, in.text.data() + 8, 4);
        std::memcpy(&regs.link_cap2, in.text.data() + 10, 4);
      }
      auto info = fabric::DecodeExpress(regs);
      (void)fabric::PortTypeName(info.port_type);
      (void)fabric::IsUpstreamFacing(info.port_type);
      break;
    }
    case 6:
      (void)fabric::ParseUint64(in.text);
      (void)fabric::ParseUint64(in.text, 16);
      (void)fabric::ParseInt64(in.text);
      (void)fabric::ParseDouble(in.text);
      break;
    case 7:
      (void)fabric::SplitFields(in.text);
      (void)fabric::SplitLines(in.text);
      (void)fabric::TrimSpace(in.text);
      (void)fabric::Quote(in.text);
      break;
    case 8: {
      auto r = fabric::ParseBlockStat(in.text, "stat");
      if (r.ok()) (void)(r->read_sectors + r->write_sectors);
      break;
    }
    case 9: {
      auto r = fabric::ParseNvmeAddress(in.text, "address");
      if (r.ok()) (void)(r->traddr.size() + r->trsvcid.size());
      break;
    }
  }
  return 0;
}
