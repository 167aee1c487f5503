// `fabric_probe ladder` (ladder_command.cc).
#pragma once

namespace fabric::probe {

// argv[0] is "ladder"; returns the process exit status.
int RunLadderCommand(int argc, char** argv);

}  // namespace fabric::probe
