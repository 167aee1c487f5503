#include "active-probes/cli/subcommand.h"

namespace fabric::probe {

const std::vector<Subcommand>& Subcommands() {
  static const std::vector<Subcommand> table = {};
  return table;
}

}  // namespace fabric::probe
