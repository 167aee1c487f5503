// `fabric_probe fleet` (fleet_command.cc).
#pragma once

namespace fabric::probe {

// argv[0] is "fleet"; returns the process exit status.
int RunFleetCommand(int argc, char** argv);

}  // namespace fabric::probe
