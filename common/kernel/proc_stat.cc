#include "common/kernel/proc_stat.h"

#include "common/read/file_reader.h"

namespace fabric {

Result<std::vector<CpuTimes>> ReadProcStat(const SysRoot& root) {
  auto text = ReadTable(root.Proc("stat"));
  if (!text.ok()) return Unexpected{text.error()};
  return ParseProcStat(*text);
}

}  // namespace fabric
