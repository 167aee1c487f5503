// fabric_probe: one-shot ladder probes (TCP, RDMA, storage) and the responder
// they run against.
#include <cstdio>
#include <string_view>

#include "active-probes/cli/subcommand.h"
#include "common/build_info.h"

namespace {

void PrintUsage(FILE* out) {
  std::fprintf(out,
               "Usage: fabric_probe COMMAND [FLAGS]\n\n"
               "Measures one layer of the fabric ladder at a time, with self-checks that tell a\n"
               "fabric limit from a harness limit.\n\nCommands:\n");
  for (const auto& sub : fabric::probe::Subcommands()) {
    std::fprintf(out, "  %-12.*s %.*s\n", static_cast<int>(sub.name.size()), sub.name.data(),
                 static_cast<int>(sub.summary.size()), sub.summary.data());
  }
  std::fprintf(out,
               "\nRun `fabric_probe COMMAND --help` for a command's flags.\n"
               "  --version    print the version and exit\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(stderr);
    return 2;
  }
  std::string_view command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    PrintUsage(stdout);
    return 0;
  }
  if (command == "--version") {
    std::printf("fabric_probe %s (revision %s)\n", fabric::build::kVersion,
                fabric::build::kRevision);
    return 0;
  }
  for (const auto& sub : fabric::probe::Subcommands()) {
    if (sub.name == command) return sub.run(argc - 1, argv + 1);
  }
  std::fprintf(stderr, "fabric_probe: unknown command \"%s\"; run fabric_probe --help\n", argv[1]);
  return 2;
}
