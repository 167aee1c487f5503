// The one netlink client: a NETLINK_ROUTE (rtnetlink), NETLINK_SOCK_DIAG or
// NETLINK_RDMA socket that sends a request and hands the kernel's reply
// buffers to a pure parser (common/parse/netlink_parse.h, route_parse.h,
// rdma_netlink_parse.h). The route check asks it for one route, the flows
// backend for address, link and socket dumps, the rdma collector for the
// kernel's RDMA resource tracking.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "common/unique_fd.h"

namespace fabric {

class NetlinkSocket {
 public:
  // A socket of `protocol` (NETLINK_ROUTE, NETLINK_SOCK_DIAG); absent when
  // the kernel does not have the protocol.
  static Result<NetlinkSocket> Open(int protocol);

  // Replies that take longer than `timeout` fail the receive (EAGAIN).
  void SetReceiveTimeout(std::chrono::milliseconds timeout);

  // Sends one request and returns the first reply buffer (up to
  // `max_bytes`): the whole answer of a request such as RTM_GETROUTE.
  Result<std::string> Request(const void* request, size_t length, size_t max_bytes = 8192);

  // Sends one dump request (NLM_F_DUMP) and feeds every reply buffer to
  // `parse` until it sets `done` (the dump's NLMSG_DONE). A dump larger than
  // `max_bytes` in all fails. An NLMSG_ERROR leading a reply with an errno
  // meaning "no handler" (IsAbsentErrno: IPv6 disabled, inet_diag not built)
  // makes the result absent.
  using ParseBuffer = std::function<Status(std::string_view buffer, bool& done)>;
  Status Dump(const void* request, size_t length, const ParseBuffer& parse, size_t max_bytes);

  // A socket of `protocol` subscribed to the multicast `groups` (a bitmask, group N is bit
  // N-1), that never blocks, with a receive buffer of `buffer_bytes` (messages wait there
  // between two Drain()s). Absent when the kernel has no such protocol; an error when it
  // refuses the groups (sock_diag's destroy groups need CAP_NET_ADMIN).
  static Result<NetlinkSocket> Subscribe(int protocol, uint32_t groups, int buffer_bytes);
  // Feeds every message waiting on a subscribed socket to `parse` (its `done` is ignored: a
  // multicast stream has no end), up to `max_bytes` per call. Sets `overrun` when the kernel
  // dropped messages since the last Drain (its buffer was full: ENOBUFS).
  Status Drain(const ParseBuffer& parse, size_t max_bytes, bool& overrun);

 private:
  explicit NetlinkSocket(UniqueFd fd) : fd_(std::move(fd)) {}
  Status Send(const void* request, size_t length);

  UniqueFd fd_;
};

}  // namespace fabric
