#include "common/kernel/netlink_socket.h"

#include <linux/netlink.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "common/read/file_reader.h"
#include "common/socket_receive_timeout.h"

namespace fabric {
namespace {

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

}  // namespace

Result<NetlinkSocket> NetlinkSocket::Open(int protocol) {
  UniqueFd fd(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol));
  if (!fd.valid()) {
    int err = errno;
    std::string what = std::string("netlink socket: ") + std::strerror(err);
    return IsAbsentErrno(err) || err == EPROTONOSUPPORT ? MakeAbsent(what) : MakeError(what);
  }
  return NetlinkSocket(std::move(fd));
}

void NetlinkSocket::SetReceiveTimeout(std::chrono::milliseconds timeout) {
  SetSocketReceiveTimeout(fd_.get(), timeout);
}

Status NetlinkSocket::Send(const void* request, size_t length) {
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (::sendto(fd_.get(), request, length, 0, reinterpret_cast<sockaddr*>(&kernel),
               sizeof(kernel)) < 0) {
    return MakeError(std::string("netlink send: ") + std::strerror(errno));
  }
  return OkStatus();
}

Result<std::string> NetlinkSocket::Request(const void* request, size_t length, size_t max_bytes) {
  FABRIC_RETURN_IF_ERROR(Send(request, length));
  std::string reply(max_bytes, '\0');
  ssize_t n;
  do {
    n = ::recv(fd_.get(), reply.data(), reply.size(), 0);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return MakeError(std::string("netlink receive: ") + std::strerror(errno));
  reply.resize(static_cast<size_t>(n));
  return reply;
}

Result<NetlinkSocket> NetlinkSocket::Subscribe(int protocol, uint32_t groups, int buffer_bytes) {
  auto socket = Open(protocol);
  if (!socket.ok()) return socket;
  // SO_RCVBUFFORCE goes past net.core.rmem_max for a privileged process; SO_RCVBUF, capped at
  // rmem_max, is what an unprivileged one gets.
  if (::setsockopt(socket->fd_.get(), SOL_SOCKET, SO_RCVBUFFORCE, &buffer_bytes,
                   sizeof(buffer_bytes)) != 0) {
    ::setsockopt(socket->fd_.get(), SOL_SOCKET, SO_RCVBUF, &buffer_bytes, sizeof(buffer_bytes));
  }
  sockaddr_nl local{};
  local.nl_family = AF_NETLINK;
  local.nl_groups = groups;
  if (::bind(socket->fd_.get(), reinterpret_cast<sockaddr*>(&local), sizeof(local)) != 0) {
    return MakeError(std::string("netlink bind to multicast groups: ") + std::strerror(errno));
  }
  return socket;
}

Status NetlinkSocket::Drain(const ParseBuffer& parse, size_t max_bytes, bool& overrun) {
  overrun = false;
  std::string buffer(64 * 1024, '\0');
  size_t total = 0;
  while (total < max_bytes) {
    ssize_t n = ::recv(fd_.get(), buffer.data(), buffer.size(), MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      if (errno == ENOBUFS) {  // Messages were dropped; the ones queued after are still here.
        overrun = true;
        continue;
      }
      return MakeError(std::string("netlink recv: ") + std::strerror(errno));
    }
    total += static_cast<size_t>(n);
    bool done = false;
    FABRIC_RETURN_IF_ERROR(parse(std::string_view(buffer.data(), static_cast<size_t>(n)), done));
  }
  return OkStatus();
}

Status NetlinkSocket::Dump(const void* request, size_t length, const ParseBuffer& parse,
                           size_t max_bytes) {
  FABRIC_RETURN_IF_ERROR(Send(request, length));
  // 32 KiB per recv is what the kernel fills at most per dump step for
  // sock_diag; a larger buffer avoids MSG_TRUNC on rtnetlink's big messages.
  std::string buffer(64 * 1024, '\0');
  size_t total = 0;
  for (bool done = false; !done;) {
    ssize_t n = ::recv(fd_.get(), buffer.data(), buffer.size(), 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return MakeError(std::string("netlink recv: ") + std::strerror(errno));
    }
    if (n == 0) return MakeError("netlink recv: socket closed before NLMSG_DONE");
    total += static_cast<size_t>(n);
    if (total > max_bytes) {
      constexpr size_t kGiB = size_t{1} << 30;
      return MakeError("netlink dump larger than " +
                       (max_bytes % kGiB == 0 ? std::to_string(max_bytes / kGiB) + " GiB"
                                              : std::to_string(max_bytes) + " bytes"));
    }
    if (int err = LeadingNetlinkErrno(buffer.data(), static_cast<size_t>(n)); IsAbsentErrno(err)) {
      // No handler for this family or protocol (e.g. IPv6 disabled, or
      // inet_diag not built): this host does not have it.
      return MakeAbsent(std::string("netlink dump: ") + std::strerror(err));
    }
    FABRIC_RETURN_IF_ERROR(parse(std::string_view(buffer.data(), static_cast<size_t>(n)), done));
  }
  return OkStatus();
}

}  // namespace fabric
