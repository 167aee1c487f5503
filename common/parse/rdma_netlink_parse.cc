#include "common/parse/rdma_netlink_parse.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>

#include <array>
#include <cstring>

#include "common/parse/netlink_messages.h"
#include "common/parse/nlattr_walk.h"

namespace fabric {
namespace {

constexpr uint16_t NldevType(int command) {
  return static_cast<uint16_t>(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, command));
}

// A string attribute: NUL-terminated by the kernel; the terminator and
// anything past it are dropped.
std::string NlattrString(std::string_view payload) {
  return std::string(payload.substr(0, payload.find('\0')));
}

// The device handle every nldev message starts with (fill_nldev_handle).
struct DeviceHandle {
  std::optional<uint32_t> index;
  std::string name;
};

// Keeps the owner attributes of an entry (fill_res_name_pid): a user
// object names its pid, a kernel one its module.
bool TakeOwner(uint16_t type, std::string_view payload, RdmaResourceOwner& owner) {
  if (type == RDMA_NLDEV_ATTR_RES_PID) {
    owner.pid = NlattrValue<uint32_t>(payload);
    return true;
  }
  if (type == RDMA_NLDEV_ATTR_RES_KERN_NAME) {
    owner.kernel_name = NlattrString(payload);
    return true;
  }
  return false;
}

// RES_SRC_ADDR / RES_DST_ADDR: a struct __kernel_sockaddr_storage copied
// from the cm_id's route; its family decides the layout.
std::optional<RdmaCmAddress> CmAddress(std::string_view payload) {
  auto family = NlattrValue<uint16_t>(payload);
  if (!family) return std::nullopt;
  RdmaCmAddress out;
  if (*family == AF_INET && payload.size() >= sizeof(sockaddr_in)) {
    sockaddr_in in;
    std::memcpy(&in, payload.data(), sizeof in);
    out.address = IpAddress::V4(reinterpret_cast<const uint8_t*>(&in.sin_addr));
    out.port = ntohs(in.sin_port);
    return out;
  }
  if (*family == AF_INET6 && payload.size() >= sizeof(sockaddr_in6)) {
    sockaddr_in6 in6;
    std::memcpy(&in6, payload.data(), sizeof in6);
    out.address = IpAddress::V6(in6.sin6_addr.s6_addr);
    out.port = ntohs(in6.sin6_port);
    return out;
  }
  return std::nullopt;  // AF_UNSPEC (not resolved yet) or AF_IB.
}

// Walks a resource dump: per message the device handle and the nested
// `table` of `entry` attributes; `entry_parse` fills one record from an
// entry's attributes and says whether it had the object's required one.
template <typename Record, typename EntryParse>
Status ParseResourceBuffer(std::string_view buffer, int command, uint16_t table, uint16_t entry,
                           std::string_view what, std::vector<Record>& out, bool& done,
                           EntryParse entry_parse) {
  return WalkNetlinkMessages(
      buffer, NldevType(command), what, done, [&](std::string_view payload) -> Status {
        DeviceHandle device;
        std::vector<std::string_view> entries;
        bool table_seen = false;
        WalkNlattrs(payload, [&](uint16_t type, std::string_view data) {
          if (type == RDMA_NLDEV_ATTR_DEV_INDEX) device.index = NlattrValue<uint32_t>(data);
          if (type == RDMA_NLDEV_ATTR_DEV_NAME) device.name = NlattrString(data);
          if (type != table) return;
          table_seen = true;
          WalkNlattrs(data, [&](uint16_t t, std::string_view e) {
            if (t == entry) entries.push_back(e);
          });
        });
        if (device.name.empty()) {
          return MakeError(std::string(what) + ": message without RDMA_NLDEV_ATTR_DEV_NAME");
        }
        if (!table_seen) {
          return MakeError(std::string(what) + ": message for " + device.name +
                           " without its resource table");
        }
        for (std::string_view e : entries) {
          Record record;
          record.device = device.name;
          if (!entry_parse(e, record)) {
            return MakeError(std::string(what) + ": entry of " + device.name +
                             " without its object number");
          }
          out.push_back(std::move(record));
        }
        return OkStatus();
      });
}

}  // namespace

Status ParseRdmaDeviceBuffer(std::string_view buffer, std::vector<RdmaDeviceRecord>& out,
                             bool& done) {
  return WalkNetlinkMessages(
      buffer, NldevType(RDMA_NLDEV_CMD_GET), "rdma nldev get", done,
      [&](std::string_view payload) -> Status {
        DeviceHandle device;
        WalkNlattrs(payload, [&](uint16_t type, std::string_view data) {
          if (type == RDMA_NLDEV_ATTR_DEV_INDEX) device.index = NlattrValue<uint32_t>(data);
          if (type == RDMA_NLDEV_ATTR_DEV_NAME) device.name = NlattrString(data);
        });
        if (!device.index || device.name.empty()) {
          return MakeError("rdma nldev get: device message without index or name");
        }
        out.push_back({*device.index, device.name});
        return OkStatus();
      });
}

Status ParseRdmaQpBuffer(std::string_view buffer, std::vector<RdmaQpRecord>& out, bool& done) {
  return ParseResourceBuffer(buffer, RDMA_NLDEV_CMD_RES_QP_GET, RDMA_NLDEV_ATTR_RES_QP,
                             RDMA_NLDEV_ATTR_RES_QP_ENTRY, "rdma res qp", out, done,
                             [](std::string_view entry, RdmaQpRecord& qp) {
                               bool has_lqpn = false;
                               WalkNlattrs(entry, [&](uint16_t type, std::string_view data) {
                                 if (TakeOwner(type, data, qp.owner)) return;
                                 switch (type) {
                                   case RDMA_NLDEV_ATTR_PORT_INDEX:
                                     qp.port = NlattrValue<uint32_t>(data).value_or(0);
                                     break;
                                   case RDMA_NLDEV_ATTR_RES_LQPN:
                                     if (auto v = NlattrValue<uint32_t>(data)) {
                                       qp.lqpn = *v;
                                       has_lqpn = true;
                                     }
                                     break;
                                   case RDMA_NLDEV_ATTR_RES_RQPN:
                                     qp.rqpn = NlattrValue<uint32_t>(data);
                                     break;
                                   case RDMA_NLDEV_ATTR_RES_TYPE:
                                     qp.type = NlattrValue<uint8_t>(data).value_or(0);
                                     break;
                                   case RDMA_NLDEV_ATTR_RES_STATE:
                                     qp.state = NlattrValue<uint8_t>(data).value_or(0);
                                     break;
                                   default:
                                     break;
                                 }
                               });
                               return has_lqpn;
                             });
}

Status ParseRdmaCmIdBuffer(std::string_view buffer, std::vector<RdmaCmIdRecord>& out, bool& done) {
  return ParseResourceBuffer(buffer, RDMA_NLDEV_CMD_RES_CM_ID_GET, RDMA_NLDEV_ATTR_RES_CM_ID,
                             RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY, "rdma res cm_id", out, done,
                             [](std::string_view entry, RdmaCmIdRecord& id) {
                               bool has_number = false;
                               WalkNlattrs(entry, [&](uint16_t type, std::string_view data) {
                                 if (TakeOwner(type, data, id.owner)) return;
                                 switch (type) {
                                   case RDMA_NLDEV_ATTR_PORT_INDEX:
                                     id.port = NlattrValue<uint32_t>(data).value_or(0);
                                     break;
                                   case RDMA_NLDEV_ATTR_RES_LQPN:
                                     id.lqpn = NlattrValue<uint32_t>(data);
                                     break;
                                   case RDMA_NLDEV_ATTR_RES_PS:
                                     id.port_space = NlattrValue<uint32_t>(data).value_or(0);
                                     break;
                                   case RDMA_NLDEV_ATTR_RES_STATE:
                                     id.state = NlattrValue<uint8_t>(data).value_or(0);
                                     break;
                                   case RDMA_NLDEV_ATTR_RES_SRC_ADDR:
                                     id.source = CmAddress(data);
                                     break;
                                   case RDMA_NLDEV_ATTR_RES_DST_ADDR:
                                     id.destination = CmAddress(data);
                                     break;
                                   case RDMA_NLDEV_ATTR_RES_CM_IDN:
                                     has_number = NlattrValue<uint32_t>(data).has_value();
                                     break;
                                   default:
                                     break;
                                 }
                               });
                               return has_number;
                             });
}

std::string RdmaQpTypeName(uint8_t type) {
  // enum ib_qp_type (include/rdma/ib_verbs.h); 0xff is IB_QPT_DRIVER.
  static constexpr std::array<const char*, 11> kNames = {
      "SMI",           "GSI", "RC",         "UC",      "UD",     "RAW_IPV6",
      "RAW_ETHERTYPE", "",    "RAW_PACKET", "XRC_INI", "XRC_TGT"};
  if (type < kNames.size() && kNames[type][0] != '\0') return kNames[type];
  if (type == 0xff) return "DRIVER";
  return std::to_string(type);
}

std::string RdmaQpStateName(uint8_t state) {
  // enum ib_qp_state.
  static constexpr std::array<const char*, 7> kNames = {"RESET", "INIT", "RTR", "RTS",
                                                        "SQD",   "SQE",  "ERR"};
  return state < kNames.size() ? kNames[state] : std::to_string(state);
}

std::string RdmaCmStateName(uint8_t state) {
  // enum rdma_cm_state (drivers/infiniband/core/cma_priv.h).
  static constexpr std::array<const char*, 11> kNames = {
      "IDLE",       "ADDR_QUERY", "ADDR_RESOLVED", "ROUTE_QUERY",    "ROUTE_RESOLVED", "CONNECT",
      "DISCONNECT", "ADDR_BOUND", "LISTEN",        "DEVICE_REMOVAL", "DESTROYING"};
  return state < kNames.size() ? kNames[state] : std::to_string(state);
}

std::string RdmaPortSpaceName(uint32_t port_space) {
  // enum rdma_ucm_port_space (rdma/rdma_user_cm.h).
  switch (port_space) {
    case 0x0002:
      return "IPOIB";
    case 0x0106:
      return "TCP";
    case 0x0111:
      return "UDP";
    case 0x013f:
      return "IB";
    default:
      return std::to_string(port_space);
  }
}

}  // namespace fabric
