#include "active-probes/cli/storage_command.h"
#include "active-probes/cli/subcommand.h"

namespace fabric::probe {

const std::vector<Subcommand>& Subcommands() {
  static const std::vector<Subcommand> table = {
      {"storage", "direct-I/O read/write throughput, IOPS and latency of a directory (io_uring)",
       RunStorage},
  };
  return table;
}

}  // namespace fabric::probe
