// PCIe link arithmetic: what a link of a given speed and width carries after
// line encoding. Field shape 14 hangs on it: Gen4 x16 is ~252 Gb/s and
// carries 200 GbE; Gen4 x4 is ~63 Gb/s and cannot.
#pragma once

namespace fabric {

// Payload bits per transferred bit: 8b/10b at 2.5 and 5 GT/s, 128b/130b at
// 8, 16 and 32 GT/s, 242B/256B FLIT at 64 GT/s and above.
double PcieEncodingEfficiency(double gigatransfers_per_second);

// Usable bandwidth of one direction of a link, in bytes per second, after
// line encoding (before TLP/DLLP protocol overhead, which depends on payload
// size).
double PcieLinkBytesPerSecond(double gigatransfers_per_second, int lanes);

}  // namespace fabric
