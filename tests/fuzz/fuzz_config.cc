// fabric_exporter's YAML config file: the shape check, web/log/paths, the
// fleet and probes sections, and every enabled collector's own settings (its
// factory validates them), exactly as start-up resolves them. A rejected file
// throws ConfigError or std::invalid_argument, which main() reports; any
// other exception escaping, or a crash, is a bug.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/log.h"
#include "common/read/sysroot.h"
#include "exporter/app/options.h"
#include "exporter/collectors/collector_table.h"

namespace {

// A root with nothing under it: collectors must not find a live procfs, so
// none opens netlink sockets or reads the host.
constexpr char kEmptyRoot[] = "/nonexistent/fabric-fuzz";

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fabric::log::Configure(fabric::log::Level::kError, fabric::log::Format::kLogfmt);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fabric::FlagSet* flags = [] {
    auto* f = new fabric::FlagSet(fabric::MakeExporterFlags(fabric::CollectorTable()));
    const char* argv[] = {"fabric_exporter"};
    if (!f->Parse(1, argv).ok()) std::abort();
    return f;
  }();
  const auto& table = fabric::CollectorTable();
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    auto options = fabric::ResolveExporterOptionsFromText(*flags, table, text, "fuzz.yml");
    fabric::SysRoot root(std::string(kEmptyRoot) + "/proc", std::string(kEmptyRoot) + "/sys");
    for (const auto& spec : table) {
      bool enabled = false;
      for (const auto& name : options.enabled_collectors) enabled = enabled || name == spec.name;
      if (!enabled) continue;
      fabric::ConfigNode settings = fabric::CollectorSettings(options, spec.name);
      (void)spec.factory({root, settings});
    }
  } catch (const fabric::ConfigError&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
