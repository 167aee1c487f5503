#include "active-probes/cli/probe_cli.h"

#include <cstdio>
#include <string_view>

#include "common/build_info.h"

namespace fabric::probe {
namespace {

void PrintUsage(FILE* out, const std::vector<Subcommand>& table) {
  std::fprintf(out,
               "Usage: fabric_probe COMMAND [FLAGS]\n\n"
               "Measures one layer of the fabric ladder at a time, with self-checks that tell a\n"
               "fabric limit from a harness limit.\n\nCommands:\n");
  for (const auto& sub : table) {
    std::fprintf(out, "  %-12.*s %.*s\n", static_cast<int>(sub.name.size()), sub.name.data(),
                 static_cast<int>(sub.summary.size()), sub.summary.data());
  }
  std::fprintf(out,
               "\nRun `fabric_probe COMMAND --help` for a command's flags.\n"
               "  --version    print the version and exit\n");
}

}  // namespace

int RunProbeCli(int argc, char** argv, const std::vector<Subcommand>& extra) {
  std::vector<Subcommand> table = Subcommands();
  table.insert(table.end(), extra.begin(), extra.end());
  if (argc < 2) {
    PrintUsage(stderr, table);
    return 2;
  }
  std::string_view command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    PrintUsage(stdout, table);
    return 0;
  }
  if (command == "--version") {
    std::printf("fabric_probe %s (revision %s)\n", build::kVersion, build::kRevision);
    return 0;
  }
  for (const auto& sub : table) {
    if (sub.name == command) return sub.run(argc - 1, argv + 1);
  }
  std::fprintf(stderr, "fabric_probe: unknown command \"%s\"; run fabric_probe --help\n", argv[1]);
  return 2;
}

}  // namespace fabric::probe
