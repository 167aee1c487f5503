#include "exporter/pcie/pcie_bandwidth.h"

namespace fabric {

double PcieEncodingEfficiency(double gigatransfers_per_second) {
  if (gigatransfers_per_second < 8.0) return 8.0 / 10.0;
  if (gigatransfers_per_second < 64.0) return 128.0 / 130.0;
  return 242.0 / 256.0;
}

double PcieLinkBytesPerSecond(double gigatransfers_per_second, int lanes) {
  return gigatransfers_per_second * 1e9 * PcieEncodingEfficiency(gigatransfers_per_second) * lanes /
         8.0;
}

}  // namespace fabric
