#include "exporter/backends/pci_config_space.h"

namespace fabric {
namespace {

class NoPciConfigSpace : public PciConfigSpace {
 public:
  Result<std::map<std::string, ExpressRegisters>> ReadExpress(
      const std::vector<std::string>&) override {
    return std::map<std::string, ExpressRegisters>();
  }
  PciNames Names(uint16_t, uint16_t, uint32_t) override { return {}; }
  std::string_view kind() const override { return "none"; }
};

}  // namespace

std::unique_ptr<PciConfigSpace> MakeNoPciConfigSpace() {
  return std::make_unique<NoPciConfigSpace>();
}

#ifndef FABRIC_HAVE_LIBPCI
std::unique_ptr<PciConfigSpace> MakeLibpciSysfs(std::string, std::string) { return nullptr; }
std::unique_ptr<PciConfigSpace> MakeLibpciDump(std::string, std::string) { return nullptr; }
#endif

}  // namespace fabric
