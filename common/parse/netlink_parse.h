// Pure parsers for the netlink replies the flows backend receives: sock_diag
// (inet_diag) socket dumps and rtnetlink address and link dumps. Each takes
// one recv(2) buffer, which holds several messages, and appends what it finds;
// `done` is set when the buffer carries the dump's NLMSG_DONE.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/parse/flow_types.h"
#include "common/result.h"

namespace fabric {

// INET_DIAG socket messages with their INET_DIAG_INFO (struct tcp_info, of
// whatever length this kernel has) and INET_DIAG_SKMEMINFO attributes.
Status ParseInetDiagBuffer(std::string_view buffer, std::vector<SocketRecord>& out, bool& done);

// The TCP_INFO attribute payload alone; fields past its end are absent.
TcpInfo ParseTcpInfo(std::string_view payload);

// RTM_NEWADDR messages (IFA_LOCAL, else IFA_ADDRESS).
Status ParseIfAddrBuffer(std::string_view buffer, std::vector<InterfaceAddress>& out, bool& done);

// RTM_NEWLINK messages: ifindex -> IFLA_IFNAME.
Status ParseLinkBuffer(std::string_view buffer, std::map<uint32_t, std::string>& out, bool& done);

}  // namespace fabric
