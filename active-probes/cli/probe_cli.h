// fabric_probe's command line as a library: usage, --version and the dispatch
// to a subcommand. The executable (exporter/probe_cli/main.cc) adds the
// subcommands that need the exporter (`ladder`), so nothing here does.
#pragma once

#include <vector>

#include "active-probes/cli/subcommand.h"

namespace fabric::probe {

// Runs `fabric_probe COMMAND ...` over Subcommands() followed by `extra` (in
// that order in --help); returns the process exit status.
int RunProbeCli(int argc, char** argv, const std::vector<Subcommand>& extra);

}  // namespace fabric::probe
