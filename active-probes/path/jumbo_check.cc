#include "active-probes/path/jumbo_check.h"

#include <arpa/inet.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "common/unique_fd.h"

namespace fabric {

Result<bool> JumboEcho(const std::string& address, int mtu, std::chrono::milliseconds timeout,
                       const StopToken& stop) {
  sockaddr_in peer{};
  peer.sin_family = AF_INET;
  if (inet_pton(AF_INET, address.c_str(), &peer.sin_addr) != 1) {
    return MakeError("jumbo check supports IPv4 peers; \"" + address + "\" is not one");
  }
  constexpr int kIpAndIcmpHeaders = 20 + 8;
  if (mtu <= kIpAndIcmpHeaders || mtu > 65535) return MakeError("bad MTU " + std::to_string(mtu));
  // An unprivileged ICMP socket (net.ipv4.ping_group_range) where allowed,
  // else a raw one (CAP_NET_RAW).
  bool raw = false;
  UniqueFd fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_ICMP));
  if (!fd.valid()) {
    fd.Reset(::socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP));
    raw = true;
  }
  if (!fd.valid()) {
    return MakeError(std::string("cannot open an ICMP socket (needs net.ipv4.ping_group_range "
                                 "or CAP_NET_RAW): ") +
                     std::strerror(errno));
  }
  int pmtu = IP_PMTUDISC_DO;  // Set DF; never fragment locally.
  ::setsockopt(fd.get(), IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof pmtu);
  std::vector<unsigned char> packet(static_cast<size_t>(mtu - 20), 0xa5);
  icmphdr header{};
  header.type = ICMP_ECHO;
  const uint16_t id = static_cast<uint16_t>(::getpid());
  header.un.echo.id = htons(id);
  header.un.echo.sequence = htons(1);
  std::memcpy(packet.data(), &header, sizeof header);
  if (raw) {
    // Raw sockets need the checksum; ICMP datagram sockets compute it.
    uint32_t sum = 0;
    for (size_t i = 0; i + 1 < packet.size(); i += 2) sum += (packet[i] << 8) | packet[i + 1];
    if (packet.size() % 2) sum += packet.back() << 8;
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    uint16_t checksum = htons(static_cast<uint16_t>(~sum));
    std::memcpy(packet.data() + offsetof(icmphdr, checksum), &checksum, 2);
  }
  if (::sendto(fd.get(), packet.data(), packet.size(), 0, reinterpret_cast<sockaddr*>(&peer),
               sizeof peer) < 0) {
    if (errno == EMSGSIZE) return false;  // The egress interface's MTU is smaller.
    return MakeError(std::string("sending the jumbo echo: ") + std::strerror(errno));
  }
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<unsigned char> reply(static_cast<size_t>(mtu) + 64);
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    if (stop.stop_requested()) {
      return MakeError(ErrorCode::kInterrupted, "interrupted while waiting for the jumbo echo");
    }
    const auto wait = stop.Slice(left);
    pollfd p{fd.get(), POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0) continue;
    ssize_t n = ::recv(fd.get(), reply.data(), reply.size(), 0);
    if (n <= 0) continue;
    size_t offset = raw ? (reply[0] & 0x0f) * 4u : 0;  // Raw sockets include the IP header.
    if (static_cast<size_t>(n) < offset + sizeof(icmphdr)) continue;
    icmphdr answer;
    std::memcpy(&answer, reply.data() + offset, sizeof answer);
    // Datagram ICMP sockets rewrite the id to their port; accept the echo
    // reply of the right size either way.
    if (answer.type == ICMP_ECHOREPLY && static_cast<size_t>(n) - offset == packet.size() &&
        (!raw || ntohs(answer.un.echo.id) == id)) {
      return true;
    }
  }
}

}  // namespace fabric
