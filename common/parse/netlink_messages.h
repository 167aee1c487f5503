// Walks the nlmsghdr-framed messages of one netlink recv(2) buffer, checking
// every length against the buffer: the framing the rtnetlink, sock_diag and
// RDMA netlink parsers share. Pure: it takes recorded bytes as well as live.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "common/result.h"

namespace fabric {

// Calls `handle` with the payload of each message of type `type` (others
// are skipped). An NLMSG_ERROR other than an ACK fails, naming `what`;
// NLMSG_DONE sets `done` and ends the walk; a message that runs past the
// buffer or bytes after the last message fail.
Status WalkNetlinkMessages(std::string_view buffer, uint16_t type, std::string_view what,
                           bool& done, const std::function<Status(std::string_view)>& handle);

}  // namespace fabric
