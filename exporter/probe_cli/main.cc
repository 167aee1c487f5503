// fabric_probe: one-shot ladder probes (TCP, RDMA, storage), the responder
// they run against, and `ladder`, which draws the exporter's ladder and so
// lives on the exporter side of the dependency line.
#include <vector>

#include "active-probes/cli/probe_cli.h"
#include "exporter/probe_cli/ladder_command.h"

int main(int argc, char** argv) {
  static const std::vector<fabric::probe::Subcommand> kExporterSubcommands = {
      {"ladder", "every probe once against a peer, printed as the ladder with its binding layer",
       fabric::probe::RunLadderCommand},
  };
  return fabric::probe::RunProbeCli(argc, argv, kExporterSubcommands);
}
