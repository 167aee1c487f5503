// fabric_probe: one-shot ladder probes (TCP, RDMA, storage), the responder
// they run against, and `ladder`, which draws the exporter's ladder and so
// lives on the exporter side of the dependency line, as does `fleet`, which writes the
// exporter's nodes file.
#include <vector>

#include "active-probes/cli/probe_cli.h"
#include "exporter/probe_cli/fleet_command.h"
#include "exporter/probe_cli/ladder_command.h"

int main(int argc, char** argv) {
  static const std::vector<fabric::probe::Subcommand> kExporterSubcommands = {
      {"ladder", "every probe once against a peer, printed as the ladder with its binding layer",
       fabric::probe::RunLadderCommand},
      {"fleet", "writes the fleet's nodes file from kubectl's node list or a CSV inventory",
       fabric::probe::RunFleetCommand},
  };
  return fabric::probe::RunProbeCli(argc, argv, kExporterSubcommands);
}
