// RDMA netlink (NETLINK_RDMA, nldev) dump parsers: the device list and the
// resource-tracking dumps of queue pairs and rdma_cm ids, with their nested
// tables and sockaddr_storage addresses. A length read wrong here reads past
// the receive buffer, which is what this target looks for. The input is
// copied into a buffer of its exact size so ASan sees overreads.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "common/parse/rdma_netlink_parse.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto in = fabric::fuzz::Split(data, size, 3);
  // Netlink buffers are 4-byte aligned in the kernel's receive buffer.
  std::unique_ptr<uint32_t[]> aligned(new uint32_t[in.text.size() / 4 + 1]);
  if (!in.text.empty()) std::memcpy(aligned.get(), in.text.data(), in.text.size());
  std::string_view buffer(reinterpret_cast<const char*>(aligned.get()), in.text.size());
  bool done = false;
  switch (in.selector) {
    case 0: {
      std::vector<fabric::RdmaDeviceRecord> devices;
      (void)fabric::ParseRdmaDeviceBuffer(buffer, devices, done);
      break;
    }
    case 1: {
      std::vector<fabric::RdmaQpRecord> qps;
      (void)fabric::ParseRdmaQpBuffer(buffer, qps, done);
      for (const auto& qp : qps) (void)fabric::RdmaQpTypeName(qp.type).size();
      break;
    }
    case 2: {
      std::vector<fabric::RdmaCmIdRecord> ids;
      (void)fabric::ParseRdmaCmIdBuffer(buffer, ids, done);
      for (const auto& id : ids) {
        if (id.destination) (void)id.destination->address.ToString().size();
      }
      break;
    }
  }
  return 0;
}
