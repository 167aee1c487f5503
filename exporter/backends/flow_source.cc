#include "exporter/backends/flow_source.h"

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <time.h>

#include <map>
#include <optional>

#include "common/kernel/netlink_socket.h"
#include "common/log.h"
#include "common/parse/flow_recording_parse.h"
#include "common/parse/netlink_parse.h"
#include "common/read/file_reader.h"

namespace fabric {
namespace {

// Dumps are bounded so a runaway reply cannot grow the exporter without limit:
// 1 GiB is ~3 million sockets' worth of TCP_INFO.
constexpr size_t kMaxDumpBytes = size_t{1} << 30;

Status DumpSockets(std::vector<SocketRecord>& out) {
  auto socket = NetlinkSocket::Open(NETLINK_SOCK_DIAG);
  if (!socket.ok()) return Unexpected{socket.error()};
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
    // Only states with data and a TCP_INFO: listeners and TIME-WAIT are not
    // flows. The closing states keep a connection's last acked bytes in view
    // until it is gone (a per-file loop closes one every file).
    message.request.idiag_states = (1u << TCP_ESTABLISHED) | (1u << TCP_FIN_WAIT1) |
                                   (1u << TCP_FIN_WAIT2) | (1u << TCP_CLOSE_WAIT) |
                                   (1u << TCP_CLOSING) | (1u << TCP_LAST_ACK);
    message.request.idiag_ext = (1u << (INET_DIAG_INFO - 1)) | (1u << (INET_DIAG_SKMEMINFO - 1));
    auto dumped = socket->Dump(
        &message, sizeof(message),
        [&](std::string_view buffer, bool& done) { return ParseInetDiagBuffer(buffer, out, done); },
        kMaxDumpBytes);
    if (dumped.absent() && family == AF_INET6) continue;  // A kernel without IPv6.
    if (!dumped.ok()) return dumped;
  }
  return OkStatus();
}

Status DumpAddresses(std::vector<InterfaceAddress>& out) {
  auto socket = NetlinkSocket::Open(NETLINK_ROUTE);
  if (!socket.ok()) return Unexpected{socket.error()};
  struct {
    nlmsghdr header;
    ifaddrmsg request;
  } addr_message{};
  addr_message.header.nlmsg_len = sizeof(addr_message);
  addr_message.header.nlmsg_type = RTM_GETADDR;
  addr_message.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  addr_message.request.ifa_family = AF_UNSPEC;
  FABRIC_RETURN_IF_ERROR(socket->Dump(
      &addr_message, sizeof(addr_message),
      [&](std::string_view buffer, bool& done) { return ParseIfAddrBuffer(buffer, out, done); },
      kMaxDumpBytes));
  struct {
    nlmsghdr header;
    ifinfomsg request;
  } link_message{};
  link_message.header.nlmsg_len = sizeof(link_message);
  link_message.header.nlmsg_type = RTM_GETLINK;
  link_message.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  link_message.request.ifi_family = AF_UNSPEC;
  std::map<uint32_t, std::string> names;
  FABRIC_RETURN_IF_ERROR(socket->Dump(
      &link_message, sizeof(link_message),
      [&](std::string_view buffer, bool& done) { return ParseLinkBuffer(buffer, names, done); },
      kMaxDumpBytes));
  for (auto& a : out) {
    if (auto it = names.find(a.ifindex); it != names.end()) a.interface = it->second;
  }
  return OkStatus();
}

// The destroyed TCP sockets' last TCP_INFO wait in a socket of their own between scrapes:
// 4 MiB holds ~10,000 of them (a message is ~400 bytes).
constexpr int kDestroyedBufferBytes = 4 << 20;

class NetlinkFlowSource : public FlowSource {
 public:
  NetlinkFlowSource() {
    auto subscribed = NetlinkSocket::Subscribe(
        NETLINK_SOCK_DIAG,
        (1u << (SKNLGRP_INET_TCP_DESTROY - 1)) | (1u << (SKNLGRP_INET6_TCP_DESTROY - 1)),
        kDestroyedBufferBytes);
    if (subscribed.ok()) {
      destroyed_.emplace(std::move(*subscribed));
    } else {
      log::Warn(
          "flows: no sock_diag destroy messages (CAP_NET_ADMIN needed): the bytes a connection "
          "moves after the last scrape that saw it are not counted",
          {{"err", subscribed.error().message}});
    }
  }

  Result<FlowSnapshot> Snapshot() override {
    FlowSnapshot snapshot;
    FABRIC_RETURN_IF_ERROR(DumpAddresses(snapshot.addresses));
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    FABRIC_RETURN_IF_ERROR(DumpSockets(snapshot.sockets));
    snapshot.monotonic_seconds = static_cast<double>(now.tv_sec) + now.tv_nsec * 1e-9;
    // After the dump: a socket destroyed since is in both, its last bytes counted once (the
    // tracker takes the destroyed record's totals against the dump's).
    if (destroyed_) {
      Status drained = destroyed_->Drain(
          [&](std::string_view buffer, bool& done) {
            return ParseInetDiagBuffer(buffer, snapshot.closed, done);
          },
          kMaxDumpBytes, snapshot.closed_overrun);
      if (!drained.ok()) return Unexpected{drained.error()};
      if (snapshot.closed_overrun) {
        log::Warn(
            "flows: the kernel dropped sock_diag destroy messages (more connections closed "
            "between two scrapes than its buffer holds): their last bytes are not counted");
      }
    }
    return snapshot;
  }

 private:
  std::optional<NetlinkSocket> destroyed_;
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
