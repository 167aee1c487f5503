#include "exporter/backends/flow_source.h"

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <time.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <map>

#include "common/parse/flow_recording_parse.h"
#include "common/parse/netlink_parse.h"
#include "common/read/file_reader.h"
#include "common/unique_fd.h"

namespace fabric {
namespace {

// Dumps are bounded so a runaway reply cannot grow the exporter without limit:
// 1 GiB is ~3 million sockets' worth of TCP_INFO.
constexpr size_t kMaxDumpBytes = size_t{1} << 30;

Result<UniqueFd> OpenNetlink(int protocol) {
  UniqueFd fd(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol));
  if (!fd.valid()) {
    int err = errno;
    std::string what = std::string("netlink socket: ") + std::strerror(err);
    return IsAbsentErrno(err) || err == EPROTONOSUPPORT ? MakeAbsent(what) : MakeError(what);
  }
  return fd;
}

// The errno of a reply that starts with NLMSG_ERROR, else 0.
int LeadingNetlinkErrno(const char* data, size_t length) {
  nlmsghdr header;
  if (length < NLMSG_HDRLEN + sizeof(int)) return 0;
  std::memcpy(&header, data, sizeof(header));
  if (header.nlmsg_type != NLMSG_ERROR) return 0;
  int err = 0;
  std::memcpy(&err, data + NLMSG_HDRLEN, sizeof(err));
  return -err;
}

// Sends one dump request and feeds every reply buffer to `parse` until
// NLMSG_DONE.
Status Dump(int fd, const void* request, size_t length,
            const std::function<Status(std::string_view, bool&)>& parse) {
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (::sendto(fd, request, length, 0, reinterpret_cast<sockaddr*>(&kernel), sizeof(kernel)) < 0) {
    return MakeError(std::string("netlink send: ") + std::strerror(errno));
  }
  // 32 KiB per recv is what the kernel fills at most per dump step for
  // sock_diag; a larger buffer avoids MSG_TRUNC on rtnetlink's big messages.
  std::string buffer(64 * 1024, '\0');
  size_t total = 0;
  for (bool done = false; !done;) {
    ssize_t n = ::recv(fd, buffer.data(), buffer.size(), 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return MakeError(std::string("netlink recv: ") + std::strerror(errno));
    }
    if (n == 0) return MakeError("netlink recv: socket closed before NLMSG_DONE");
    total += static_cast<size_t>(n);
    if (total > kMaxDumpBytes) return MakeError("netlink dump larger than 1 GiB");
    if (int err = LeadingNetlinkErrno(buffer.data(), static_cast<size_t>(n)); IsAbsentErrno(err)) {
      // No handler for this family or protocol (e.g. IPv6 disabled, or
      // inet_diag not built): this host does not have it.
      return MakeAbsent(std::string("netlink dump: ") + std::strerror(err));
    }
    FABRIC_RETURN_IF_ERROR(parse(std::string_view(buffer.data(), static_cast<size_t>(n)), done));
  }
  return OkStatus();
}

Status DumpSockets(std::vector<SocketRecord>& out) {
  auto fd = OpenNetlink(NETLINK_SOCK_DIAG);
  if (!fd.ok()) return Unexpected{fd.error()};
  for (uint8_t family : {AF_INET, AF_INET6}) {
    struct {
      nlmsghdr header;
      inet_diag_req_v2 request;
    } message{};
    message.header.nlmsg_len = sizeof(message);
    message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    message.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    message.request.sdiag_family = family;
    message.request.sdiag_protocol = IPPROTO_TCP;
    // Only states that move data; listeners and TIME-WAIT are not flows.
    message.request.idiag_states =
        (1u << TCP_ESTABLISHED) | (1u << TCP_FIN_WAIT1) | (1u << TCP_CLOSE_WAIT);
    message.request.idiag_ext = (1u << (INET_DIAG_INFO - 1)) | (1u << (INET_DIAG_SKMEMINFO - 1));
    auto dumped =
        Dump(fd->get(), &message, sizeof(message), [&](std::string_view buffer, bool& done) {
          return ParseInetDiagBuffer(buffer, out, done);
        });
    if (dumped.absent() && family == AF_INET6) continue;  // A kernel without IPv6.
    if (!dumped.ok()) return dumped;
  }
  return OkStatus();
}

Status DumpAddresses(std::vector<InterfaceAddress>& out) {
  auto fd = OpenNetlink(NETLINK_ROUTE);
  if (!fd.ok()) return Unexpected{fd.error()};
  struct {
    nlmsghdr header;
    ifaddrmsg request;
  } addr_message{};
  addr_message.header.nlmsg_len = sizeof(addr_message);
  addr_message.header.nlmsg_type = RTM_GETADDR;
  addr_message.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  addr_message.request.ifa_family = AF_UNSPEC;
  FABRIC_RETURN_IF_ERROR(Dump(
      fd->get(), &addr_message, sizeof(addr_message),
      [&](std::string_view buffer, bool& done) { return ParseIfAddrBuffer(buffer, out, done); }));
  struct {
    nlmsghdr header;
    ifinfomsg request;
  } link_message{};
  link_message.header.nlmsg_len = sizeof(link_message);
  link_message.header.nlmsg_type = RTM_GETLINK;
  link_message.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  link_message.request.ifi_family = AF_UNSPEC;
  std::map<uint32_t, std::string> names;
  FABRIC_RETURN_IF_ERROR(Dump(
      fd->get(), &link_message, sizeof(link_message),
      [&](std::string_view buffer, bool& done) { return ParseLinkBuffer(buffer, names, done); }));
  for (auto& a : out) {
    if (auto it = names.find(a.ifindex); it != names.end()) a.interface = it->second;
  }
  return OkStatus();
}

class NetlinkFlowSource : public FlowSource {
 public:
  Result<FlowSnapshot> Snapshot() override {
    FlowSnapshot snapshot;
    FABRIC_RETURN_IF_ERROR(DumpAddresses(snapshot.addresses));
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    FABRIC_RETURN_IF_ERROR(DumpSockets(snapshot.sockets));
    snapshot.monotonic_seconds = static_cast<double>(now.tv_sec) + now.tv_nsec * 1e-9;
    return snapshot;
  }
};

}  // namespace

std::unique_ptr<FlowSource> MakeNetlinkFlowSource() {
  return std::make_unique<NetlinkFlowSource>();
}

Result<std::vector<FlowSnapshot>> LoadFlowRecording(const std::string& path) {
  auto text = ReadTable(path);
  if (!text.ok()) return Unexpected{text.error()};
  auto snapshots = ParseFlowRecording(*text, path);
  if (!snapshots.ok()) return snapshots;
  if (snapshots->size() < 2) {
    return MakeError(path + ": a recording needs two snapshots (rates are deltas)");
  }
  return snapshots;
}

}  // namespace fabric
