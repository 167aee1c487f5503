#include "common/kernel/process_self.h"

#include <unistd.h>

#include "common/parse/process_stat_parse.h"
#include "common/read/file_reader.h"

namespace fabric {

Result<ProcessSelf> ReadProcessSelf(const SysRoot& root) {
  auto stat_text = ReadTable(root.Proc("self/stat"));
  if (!stat_text.ok()) return Unexpected{stat_text.error()};
  auto stat = ParseProcessStat(*stat_text);
  if (!stat.ok()) return Unexpected{stat.error()};
  auto system_text = ReadTable(root.Proc("stat"));
  if (!system_text.ok()) return Unexpected{system_text.error()};
  auto boot = ParseBootTime(*system_text);
  if (!boot.ok()) return Unexpected{boot.error()};
  auto limits_text = ReadTable(root.Proc("self/limits"));
  if (!limits_text.ok()) return Unexpected{limits_text.error()};
  auto max_fds = ParseMaxOpenFiles(*limits_text);
  if (!max_fds.ok()) return Unexpected{max_fds.error()};
  // The listing itself holds one descriptor while it reads: not counted.
  auto fds = ListDirectory(root.Proc("self/fd"));
  if (!fds.ok()) return Unexpected{fds.error()};

  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const auto page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  ProcessSelf self;
  self.cpu_seconds = static_cast<double>(stat->user_ticks + stat->system_ticks) / ticks;
  self.start_time_seconds =
      static_cast<double>(*boot) + static_cast<double>(stat->start_ticks) / ticks;
  self.resident_bytes = stat->resident_pages * page;
  self.virtual_bytes = stat->virtual_bytes;
  self.open_fds = fds->empty() ? 0 : fds->size() - 1;
  self.max_fds = *max_fds;
  return self;
}

}  // namespace fabric
