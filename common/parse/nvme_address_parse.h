// Parser for an NVMe over Fabrics controller's address attribute
// (/sys/class/nvme/nvmeX/address, drivers/nvme/host/fabrics.c
// nvmf_get_address): "traddr=10.0.0.1,trsvcid=4420" for rdma and tcp, with
// ",host_traddr=..." when the connect named the local address and
// ",src_addr=..." on tcp from 6.1; "traddr=nn-0x...:pn-0x...,host_traddr=..."
// for fc.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace fabric {

struct NvmeAddress {
  std::string traddr;   // The target's transport address.
  std::string trsvcid;  // Its service id (port); empty for fc.
  std::string host_traddr;
  std::string src_addr;
};

// An address without traddr is an error naming `source`; unknown keys are skipped.
Result<NvmeAddress> ParseNvmeAddress(std::string_view text, std::string_view source);

}  // namespace fabric
