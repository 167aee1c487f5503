#include "common/kernel/thread_run_times.h"

#include <string>

#include "common/parse/schedstat_parse.h"
#include "common/read/file_reader.h"
#include "common/strings.h"

namespace fabric {

std::map<uint32_t, uint64_t> ReadThreadRunnableNanoseconds(const SysRoot& root, uint32_t pid) {
  std::map<uint32_t, uint64_t> runnable;
  const std::string task_dir = root.Proc(std::to_string(pid) + "/task");
  auto tids = ListDirectory(task_dir);
  if (!tids.ok()) return runnable;
  for (const auto& name : *tids) {
    auto tid = ParseUint64(name);
    if (!tid || *tid > UINT32_MAX) continue;
    auto text = ReadAttribute(task_dir + "/" + name + "/schedstat");
    if (!text.ok()) continue;
    auto stat = ParseSchedstat(*text);
    if (!stat.ok()) continue;
    runnable[static_cast<uint32_t>(*tid)] = stat->on_cpu_ns + stat->run_delay_ns;
  }
  return runnable;
}

}  // namespace fabric
