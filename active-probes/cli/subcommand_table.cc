#include "active-probes/cli/storage_command.h"
#include "active-probes/cli/subcommand.h"

namespace fabric::probe {

int RunServeCommand(int argc, char** argv);
int RunTcpCommand(int argc, char** argv);
int RunRdmaCommand(int argc, char** argv);

const std::vector<Subcommand>& Subcommands() {
  static const std::vector<Subcommand> table = {
      {"storage", "direct-I/O read/write throughput, IOPS and latency of a directory (io_uring)",
       RunStorage},
      {"serve", "answer probes from peers (the responder)", RunServeCommand},
      {"tcp", "multi-stream TCP throughput against a responder", RunTcpCommand},
      {"rdma", "RDMA WRITE bandwidth against a responder (ib_write_bw class)", RunRdmaCommand},
  };
  return table;
}

}  // namespace fabric::probe
