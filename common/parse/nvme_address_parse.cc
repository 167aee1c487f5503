#include "common/parse/nvme_address_parse.h"

#include "common/parse/mount_options.h"
#include "common/strings.h"

namespace fabric {

Result<NvmeAddress> ParseNvmeAddress(std::string_view text, std::string_view source) {
  // The same KEY=VALUE,... list as mount options.
  MountOptions pairs = ParseMountOptions(TrimSpace(text));
  NvmeAddress a;
  a.traddr = FindMountOption(pairs, "traddr").value_or("");
  a.trsvcid = FindMountOption(pairs, "trsvcid").value_or("");
  a.host_traddr = FindMountOption(pairs, "host_traddr").value_or("");
  a.src_addr = FindMountOption(pairs, "src_addr").value_or("");
  if (a.traddr.empty()) {
    return MakeError(std::string(source) + ": no traddr in " + Quote(text));
  }
  return a;
}

}  // namespace fabric
