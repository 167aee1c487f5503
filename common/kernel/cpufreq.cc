#include "common/kernel/cpufreq.h"

#include "common/read/file_reader.h"
#include "common/strings.h"

namespace fabric {

Result<std::optional<std::string>> ReadCpuGovernor(const SysRoot& root, int cpu) {
  const AttributeDir dir(root.Sys("devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq"));
  auto text = dir.Read("scaling_governor");
  if (text.absent()) return std::optional<std::string>();
  if (!text.ok()) return Unexpected{text.error()};
  return std::optional<std::string>(std::string(TrimSpace(*text)));
}

}  // namespace fabric
