#include "common/parse/netlink_parse.h"

#include <linux/if_addr.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>

#include <cstddef>
#include <cstring>
#include <functional>

#include "common/parse/netlink_messages.h"

namespace fabric {
namespace {

// Copies a T out of possibly unaligned bytes.
template <typename T>
T Load(const char* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

// Calls `handle(type, payload)` for each rtattr in `attrs`.
Status WalkAttributes(std::string_view attrs, std::string_view what,
                      const std::function<void(uint16_t, std::string_view)>& handle) {
  size_t offset = 0;
  while (offset + sizeof(rtattr) <= attrs.size()) {
    auto attr = Load<rtattr>(attrs.data() + offset);
    if (attr.rta_len < sizeof(rtattr) || offset + attr.rta_len > attrs.size()) {
      return MakeError(std::string(what) + ": malformed netlink attribute");
    }
    handle(attr.rta_type, attrs.substr(offset + RTA_LENGTH(0), attr.rta_len - RTA_LENGTH(0)));
    offset += RTA_ALIGN(attr.rta_len);
  }
  return OkStatus();
}

IpAddress AddressFrom(uint8_t family, const void* bytes) {
  const auto* b = static_cast<const uint8_t*>(bytes);
  return family == AF_INET6 ? IpAddress::V6(b) : IpAddress::V4(b);
}

// True when `payload` reaches past the end of `field` (offset + size).
#define FABRIC_HAS_FIELD(payload, field) \
  ((payload).size() >= offsetof(tcp_info, field) + sizeof(tcp_info::field))

}  // namespace

TcpInfo ParseTcpInfo(std::string_view payload) {
  tcp_info raw{};
  std::memcpy(&raw, payload.data(), std::min(payload.size(), sizeof(raw)));
  TcpInfo info;
  info.state = raw.tcpi_state;
  info.snd_mss = raw.tcpi_snd_mss;
  info.rtt_us = raw.tcpi_rtt;
  info.snd_cwnd = raw.tcpi_snd_cwnd;
  info.rcv_space = raw.tcpi_rcv_space;
  info.total_retrans = raw.tcpi_total_retrans;
  if (FABRIC_HAS_FIELD(payload, tcpi_bytes_acked)) info.bytes_acked = raw.tcpi_bytes_acked;
  if (FABRIC_HAS_FIELD(payload, tcpi_bytes_received)) {
    info.bytes_received = raw.tcpi_bytes_received;
  }
  if (FABRIC_HAS_FIELD(payload, tcpi_delivery_rate)) info.delivery_rate = raw.tcpi_delivery_rate;
  if (FABRIC_HAS_FIELD(payload, tcpi_sndbuf_limited)) {
    info.busy_us = raw.tcpi_busy_time;
    info.rwnd_limited_us = raw.tcpi_rwnd_limited;
    info.sndbuf_limited_us = raw.tcpi_sndbuf_limited;
  }
  if (FABRIC_HAS_FIELD(payload, tcpi_snd_wnd)) info.snd_wnd = raw.tcpi_snd_wnd;
  return info;
}

Status ParseInetDiagBuffer(std::string_view buffer, std::vector<SocketRecord>& out, bool& done) {
  return WalkNetlinkMessages(
      buffer, SOCK_DIAG_BY_FAMILY, "inet_diag", done, [&](std::string_view payload) -> Status {
        if (payload.size() < sizeof(inet_diag_msg)) {
          return MakeError("inet_diag: short inet_diag_msg");
        }
        auto msg = Load<inet_diag_msg>(payload.data());
        SocketRecord record;
        record.cookie =
            (static_cast<uint64_t>(msg.id.idiag_cookie[1]) << 32) | msg.id.idiag_cookie[0];
        record.local = AddressFrom(msg.idiag_family, msg.id.idiag_src);
        record.remote = AddressFrom(msg.idiag_family, msg.id.idiag_dst);
        record.local_port = ntohs(msg.id.idiag_sport);
        record.remote_port = ntohs(msg.id.idiag_dport);
        record.state = msg.idiag_state;
        record.inode = msg.idiag_inode;
        auto attrs = payload.substr(NLMSG_ALIGN(sizeof(inet_diag_msg)));
        FABRIC_RETURN_IF_ERROR(
            WalkAttributes(attrs, "inet_diag", [&](uint16_t type, std::string_view data) {
              if (type == INET_DIAG_INFO) {
                record.info = ParseTcpInfo(data);
              } else if (type == INET_DIAG_SKMEMINFO) {
                size_t n = data.size() / sizeof(uint32_t);
                if (n > SK_MEMINFO_RMEM_ALLOC) {
                  record.rmem_alloc = Load<uint32_t>(data.data() + SK_MEMINFO_RMEM_ALLOC * 4);
                }
                if (n > SK_MEMINFO_RCVBUF) {
                  record.rcvbuf = Load<uint32_t>(data.data() + SK_MEMINFO_RCVBUF * 4);
                }
                if (n > SK_MEMINFO_SNDBUF) {
                  record.sndbuf = Load<uint32_t>(data.data() + SK_MEMINFO_SNDBUF * 4);
                }
              }
            }));
        out.push_back(std::move(record));
        return OkStatus();
      });
}

Status ParseIfAddrBuffer(std::string_view buffer, std::vector<InterfaceAddress>& out, bool& done) {
  return WalkNetlinkMessages(
      buffer, RTM_NEWADDR, "rtnetlink addresses", done, [&](std::string_view payload) -> Status {
        if (payload.size() < sizeof(ifaddrmsg)) return MakeError("rtnetlink: short ifaddrmsg");
        auto msg = Load<ifaddrmsg>(payload.data());
        if (msg.ifa_family != AF_INET && msg.ifa_family != AF_INET6) return OkStatus();
        const size_t want = msg.ifa_family == AF_INET6 ? 16 : 4;
        std::optional<IpAddress> local, address;
        FABRIC_RETURN_IF_ERROR(
            WalkAttributes(payload.substr(NLMSG_ALIGN(sizeof(ifaddrmsg))), "rtnetlink addresses",
                           [&](uint16_t type, std::string_view data) {
                             if (data.size() < want) return;
                             if (type == IFA_LOCAL)
                               local = AddressFrom(msg.ifa_family, data.data());
                             if (type == IFA_ADDRESS)
                               address = AddressFrom(msg.ifa_family, data.data());
                           }));
        // On point-to-point links IFA_ADDRESS is the peer; IFA_LOCAL is ours.
        auto ours = local ? local : address;
        if (ours) out.push_back({msg.ifa_index, "", *ours});
        return OkStatus();
      });
}

Status ParseLinkBuffer(std::string_view buffer, std::map<uint32_t, std::string>& out, bool& done) {
  return WalkNetlinkMessages(
      buffer, RTM_NEWLINK, "rtnetlink links", done, [&](std::string_view payload) -> Status {
        if (payload.size() < sizeof(ifinfomsg)) return MakeError("rtnetlink: short ifinfomsg");
        auto msg = Load<ifinfomsg>(payload.data());
        return WalkAttributes(payload.substr(NLMSG_ALIGN(sizeof(ifinfomsg))), "rtnetlink links",
                              [&](uint16_t type, std::string_view data) {
                                if (type != IFLA_IFNAME) return;
                                auto nul = data.find('\0');
                                out[static_cast<uint32_t>(msg.ifi_index)] =
                                    std::string(data.substr(0, nul));
                              });
      });
}

}  // namespace fabric
