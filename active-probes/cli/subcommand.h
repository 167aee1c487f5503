// fabric_probe's subcommands. Each probe kind adds one row to the table in
// subcommand_table.cc and implements Run in its own file.
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

const std::vector<Subcommand>& Subcommands();

}  // namespace fabric::probe
