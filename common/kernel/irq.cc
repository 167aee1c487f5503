#include "common/kernel/irq.h"

#include <string>

#include "common/parse/cpu_list_parse.h"
#include "common/read/file_reader.h"

namespace fabric {

Result<std::vector<int>> ReadIrqAffinity(const SysRoot& root, int irq) {
  const std::string path = root.Proc("irq/" + std::to_string(irq) + "/smp_affinity_list");
  auto text = ReadAttribute(path);
  if (!text.ok()) return Unexpected{text.error()};
  auto cpus = ParseCpuList(*text);
  if (!cpus.ok()) return MakeError(path + ": " + cpus.error().message);
  return cpus;
}

}  // namespace fabric
