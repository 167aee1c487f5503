// fabric_probe's subcommands. Each probe kind adds one row to the table in
// subcommand_table.cc and implements Run in its own file; `ladder` is added by
// the executable (exporter/probe_cli/main.cc).
#pragma once

#include <string_view>
#include <vector>

namespace fabric::probe {

struct Subcommand {
  std::string_view name;
  std::string_view summary;  // One line for `fabric_probe --help`.
  // argv[0] is the subcommand name; returns the process exit status.
  int (*run)(int argc, char** argv);
};

// Every subcommand active-probes/ provides (all but `ladder`).
const std::vector<Subcommand>& Subcommands();

}  // namespace fabric::probe
