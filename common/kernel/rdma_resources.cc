#include "common/kernel/rdma_resources.h"

#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include <array>
#include <chrono>
#include <cstring>
#include <functional>

#include "common/kernel/netlink_socket.h"
#include "common/read/file_reader.h"

namespace fabric {
namespace {

// Replies beyond this fail the dump: a host with a million QPs is not one to
// walk every scrape (restrack's per-QP entries are ~100 bytes).
constexpr size_t kMaxDumpBytes = size_t{64} << 20;

// A dump request: the header and, for a resource dump, the device index
// attribute the kernel requires (nldev's res_get_common_dumpit answers
// EINVAL without it).
struct DumpRequest {
  nlmsghdr header;
  nlattr index_attr;
  uint32_t index;
};

Status Dump(NetlinkSocket& socket, int command, const uint32_t* device_index,
            const NetlinkSocket::ParseBuffer& parse) {
  DumpRequest request{};
  request.header.nlmsg_type = static_cast<uint16_t>(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, command));
  request.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  request.header.nlmsg_seq = 1;
  size_t length = NLMSG_HDRLEN;
  if (device_index != nullptr) {
    request.index_attr.nla_type = RDMA_NLDEV_ATTR_DEV_INDEX;
    request.index_attr.nla_len = NLA_HDRLEN + sizeof(uint32_t);
    request.index = *device_index;
    length += NLA_HDRLEN + sizeof(uint32_t);
  }
  request.header.nlmsg_len = static_cast<uint32_t>(length);
  return socket.Dump(&request, length, parse, kMaxDumpBytes);
}

// Parses a recorded dump file as the one buffer it was sent as; the
// recording must end with the dump's NLMSG_DONE.
template <typename Parse>
Status ParseRecorded(const std::string& path, Parse parse, bool required) {
  auto bytes = ReadTable(path, kMaxDumpBytes);
  if (!bytes.ok()) {
    if (bytes.absent() && !required) return OkStatus();
    return Unexpected{bytes.error()};
  }
  bool done = false;
  FABRIC_RETURN_IF_ERROR(parse(*bytes, done));
  if (!done) return MakeError(path + ": recorded RDMA netlink dump without NLMSG_DONE");
  return OkStatus();
}

}  // namespace

Result<RdmaResources> DumpRdmaResources() {
  auto socket = NetlinkSocket::Open(NETLINK_RDMA);
  if (!socket.ok()) return Unexpected{socket.error()};
  socket->SetReceiveTimeout(std::chrono::seconds(2));
  std::vector<RdmaDeviceRecord> devices;
  FABRIC_RETURN_IF_ERROR(
      Dump(*socket, RDMA_NLDEV_CMD_GET, nullptr, [&](std::string_view buffer, bool& done) {
        return ParseRdmaDeviceBuffer(buffer, devices, done);
      }));
  if (devices.empty()) return MakeAbsent("no RDMA device");
  RdmaResources out;
  for (const RdmaDeviceRecord& device : devices) {
    FABRIC_RETURN_IF_ERROR(Dump(*socket, RDMA_NLDEV_CMD_RES_QP_GET, &device.index,
                                [&](std::string_view buffer, bool& done) {
                                  return ParseRdmaQpBuffer(buffer, out.qps, done);
                                }));
    FABRIC_RETURN_IF_ERROR(Dump(*socket, RDMA_NLDEV_CMD_RES_CM_ID_GET, &device.index,
                                [&](std::string_view buffer, bool& done) {
                                  return ParseRdmaCmIdBuffer(buffer, out.cm_ids, done);
                                }));
  }
  return out;
}

Result<RdmaResources> LoadRdmaResourceRecording(const std::string& dir) {
  std::vector<RdmaDeviceRecord> devices;
  FABRIC_RETURN_IF_ERROR(ParseRecorded(
      dir + "/devices.nl",
      [&](std::string_view bytes, bool& done) {
        return ParseRdmaDeviceBuffer(bytes, devices, done);
      },
      true));
  RdmaResources out;
  for (const RdmaDeviceRecord& device : devices) {
    FABRIC_RETURN_IF_ERROR(ParseRecorded(
        dir + "/" + device.name + ".qp.nl",
        [&](std::string_view bytes, bool& done) { return ParseRdmaQpBuffer(bytes, out.qps, done); },
        false));
    FABRIC_RETURN_IF_ERROR(ParseRecorded(
        dir + "/" + device.name + ".cm_id.nl",
        [&](std::string_view bytes, bool& done) {
          return ParseRdmaCmIdBuffer(bytes, out.cm_ids, done);
        },
        false));
  }
  return out;
}

}  // namespace fabric
