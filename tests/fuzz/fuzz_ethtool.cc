// Recorded ethtool output (fixture trees stand in for the kernel with it):
// the command line that names the capture, the output formats (-i, -S, -a,
// -l/-g, --show-fec, -c, -k), and the driver-statistic classifier every
// parsed statistic name goes through.
#include <cstddef>
#include <cstdint>

#include "common/parse/driver_stats.h"
#include "common/parse/ethtool_coalesce_parse.h"
#include "common/parse/ethtool_features_parse.h"
#include "common/parse/ethtool_fec_parse.h"
#include "common/parse/ethtool_parse.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto in = fabric::fuzz::Split(data, size, 9);
  switch (in.selector) {
    case 0:
      (void)fabric::ParseRecordedCommandLine(in.text, "ethtool.txt");
      break;
    case 1:
      (void)fabric::ParseEthtoolDriverInfo(in.text, "ethtool-i.txt");
      break;
    case 2: {
      auto stats = fabric::ParseEthtoolStats(in.text, "ethtool-S.txt");
      if (stats.ok()) {
        for (const auto& [name, value] : *stats) {
          (void)fabric::ClassifyDriverStat("mlx5_core", name);
          (void)fabric::ClassifyDriverStat("ice", name);
        }
      }
      break;
    }
    case 3:
      (void)fabric::ParseEthtoolPause(in.text, "ethtool-a.txt");
      break;
    case 4:
      (void)fabric::ParseEthtoolLimits(in.text, "ethtool-l.txt");
      break;
    case 5: {
      // "driver\nstat name": the classifier on names the parser would not produce.
      auto nl = in.text.find('\n');
      if (nl == std::string_view::npos) nl = in.text.size();
      std::string_view rest = nl < in.text.size() ? in.text.substr(nl + 1) : std::string_view();
      (void)fabric::ClassifyDriverStat(in.text.substr(0, nl), rest);
      break;
    }
    case 6:
      (void)fabric::ParseEthtoolFecText(in.text, "fec.txt");
      break;
    case 7:
      (void)fabric::ParseEthtoolCoalesceText(in.text, "coalesce.txt");
      break;
    case 8:
      (void)fabric::ParseEthtoolFeaturesText(in.text, "features.txt");
      break;
  }
  return 0;
}
