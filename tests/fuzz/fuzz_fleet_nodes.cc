// The fleet's nodes file (fleet.nodes_file) and the Kubernetes-free half of what
// `fabric_probe fleet` reads: the CSV table parser alone (0), a CSV nodes file
// (1) and a YAML nodes file (2), as the exporter validates them. A rejected
// file throws ConfigError (the CSV parser returns an error); any other
// exception escaping, or a crash, is a bug. Every accepted list must give a
// digest and survive its own YAML form.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/parse/csv_table_parse.h"
#include "exporter/config/fleet.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto input = fabric::fuzz::Split(data, size, 3);
  const std::string text(input.text);
  if (input.selector == 0) {
    (void)fabric::ParseCsvTable(text, "fuzz.csv");
    return 0;
  }
  try {
    auto nodes = fabric::ParseFleetNodesText(text, "fuzz", input.selector == 1);
    const std::string digest = fabric::FleetDigest(nodes);
    auto again =
        fabric::ParseFleetNodesText(fabric::FormatFleetNodesYaml(nodes, {}), "again", false);
    if (fabric::FleetDigest(again) != digest) std::abort();
  } catch (const fabric::ConfigError&) {
  }
  return 0;
}
