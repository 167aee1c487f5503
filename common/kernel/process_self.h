// This process's own cost from procfs: CPU time, memory, open files and start
// time, as every Prometheus exporter publishes them (process_*). The one
// reader of /proc/self/{stat,limits,fd}; parsing is in
// common/parse/process_stat_parse.
#pragma once

#include <cstdint>
#include <optional>

#include "common/read/sysroot.h"
#include "common/result.h"

namespace fabric {

struct ProcessSelf {
  double cpu_seconds = 0;         // user + system
  double start_time_seconds = 0;  // Unix time
  uint64_t resident_bytes = 0;
  uint64_t virtual_bytes = 0;
  uint64_t open_fds = 0;
  std::optional<uint64_t> max_fds;  // nullopt: unlimited
};

// Reads `root`'s self/ directory. The subject is the reading process, so the
// caller passes the procfs this process runs under (SysRoot() in the
// exporter), not a --path.procfs host mount whose "self" is another view.
Result<ProcessSelf> ReadProcessSelf(const SysRoot& root);

}  // namespace fabric
