// Pure parsers for the RDMA netlink (NETLINK_RDMA, client RDMA_NL_NLDEV)
// dumps the rdma collector asks for: the device list (RDMA_NLDEV_CMD_GET)
// and the kernel's resource tracking of queue pairs (RES_QP_GET) and
// rdma_cm ids (RES_CM_ID_GET), the objects `rdma resource show` prints.
// Each takes one recv(2) buffer, which holds several messages, and appends
// what it finds; `done` is set when the buffer carries the dump's NLMSG_DONE.
//
// The kernel (drivers/infiniband/core/nldev.c) answers a resource dump with
// one message per device: DEV_INDEX, DEV_NAME, then a nested table (RES_QP,
// RES_CM_ID) of nested entries (RES_QP_ENTRY, RES_CM_ID_ENTRY), each holding
// the object's attributes. Attributes this parser does not know are skipped,
// so newer kernels' additions do not break it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/parse/ip_address.h"
#include "common/result.h"

namespace fabric {

// Who owns a tracked object: a user process (its pid, in the reader's pid
// namespace) or a kernel module (RES_KERN_NAME: rpcrdma, nvme_rdma, ...).
struct RdmaResourceOwner {
  std::optional<uint32_t> pid;
  std::string kernel_name;
};

struct RdmaDeviceRecord {
  uint32_t index = 0;
  std::string name;
};

struct RdmaQpRecord {
  std::string device;
  uint32_t port = 0;  // 0: not bound to a port yet (RESET QPs).
  uint32_t lqpn = 0;
  std::optional<uint32_t> rqpn;  // Connected (RC, UC) QPs only.
  uint8_t type = 0;              // enum ib_qp_type.
  uint8_t state = 0;             // enum ib_qp_state.
  RdmaResourceOwner owner;
};

// A socket-style address out of a RES_SRC_ADDR / RES_DST_ADDR
// (struct __kernel_sockaddr_storage): AF_INET or AF_INET6, else none.
struct RdmaCmAddress {
  IpAddress address;
  uint16_t port = 0;
};

struct RdmaCmIdRecord {
  std::string device;
  uint32_t port = 0;
  std::optional<uint32_t> lqpn;  // The QP the id connected, once it has one.
  uint32_t port_space = 0;       // enum rdma_ucm_port_space (RDMA_PS_TCP ...).
  uint8_t state = 0;             // enum rdma_cm_state.
  std::optional<RdmaCmAddress> source;
  std::optional<RdmaCmAddress> destination;
  RdmaResourceOwner owner;
};

// RDMA_NLDEV_CMD_GET replies: index and name of each device.
Status ParseRdmaDeviceBuffer(std::string_view buffer, std::vector<RdmaDeviceRecord>& out,
                             bool& done);

// RDMA_NLDEV_CMD_RES_QP_GET replies.
Status ParseRdmaQpBuffer(std::string_view buffer, std::vector<RdmaQpRecord>& out, bool& done);

// RDMA_NLDEV_CMD_RES_CM_ID_GET replies.
Status ParseRdmaCmIdBuffer(std::string_view buffer, std::vector<RdmaCmIdRecord>& out, bool& done);

// Names the kernel's enums as `rdma resource show` does ("RC", "RTS",
// "CONNECT", "TCP"); a number the table does not know comes back as digits.
std::string RdmaQpTypeName(uint8_t type);
std::string RdmaQpStateName(uint8_t state);
std::string RdmaCmStateName(uint8_t state);
std::string RdmaPortSpaceName(uint32_t port_space);

}  // namespace fabric
