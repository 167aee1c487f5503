// The probe responder's control protocol, which faces the network before any
// authentication: one-line message parsing (and its round trip through the
// formatter), the socket framing of LineConn, the typed requests of the TCP
// and RDMA kinds, allow-list CIDRs and host:port, and the responder's side
// of the HMAC handshake run over a socketpair with the input as the peer.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "active-probes/control/cidr.h"
#include "active-probes/control/conn.h"
#include "active-probes/control/message.h"
#include "active-probes/rdma/rdma_messages.h"
#include "active-probes/responder/responder.h"
#include "active-probes/responder/session.h"
#include "active-probes/tcp/session_request.h"
#include "common/log.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

using fabric::probe::Message;

void TypedRequests(const Message& m) {
  (void)fabric::probe::RequestFromMessage(m);
  (void)fabric::probe::RdmaRequestFromMessage(m);
  (void)fabric::probe::RdmaAcceptFromMessage(m);
  (void)fabric::probe::RdmaSideReportFromMessage(m);
  (void)m.Uint("index");
}

void MessageRoundTrip(std::string_view line) {
  auto m = fabric::probe::ParseMessage(line);
  if (!m.ok()) return;
  TypedRequests(*m);
  // What parses must format back (the formatter aborts on what it cannot
  // write) and parse to the same message.
  std::string text = fabric::probe::FormatMessage(*m);
  auto again = fabric::probe::ParseMessage(std::string_view(text).substr(0, text.size() - 1));
  if (!again.ok() || again->verb != m->verb || again->fields != m->fields) std::abort();
}

// A connected socketpair whose far end has sent `bytes` and closed its
// writing side, so every read ends in data or EOF, never a wait.
struct Peer {
  int fds[2] = {-1, -1};
  explicit Peer(std::string_view bytes) {
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) std::abort();
    int size = 1 << 20;
    ::setsockopt(fds[1], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
    ::setsockopt(fds[0], SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
    while (!bytes.empty()) {
      ssize_t w = ::send(fds[1], bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (w <= 0) std::abort();  // The input fits the buffer (-max_len).
      bytes.remove_prefix(static_cast<size_t>(w));
    }
    ::shutdown(fds[1], SHUT_WR);
  }
  ~Peer() {
    if (fds[1] >= 0) ::close(fds[1]);
  }
};

void Framing(std::string_view bytes) {
  Peer peer(bytes);
  fabric::probe::LineConn conn{fabric::UniqueFd(peer.fds[0])};
  auto start = fabric::probe::SteadyClock::now();
  auto deadline = start + std::chrono::seconds(5);
  for (int i = 0; i < 100000; ++i) {
    auto m = conn.Read(deadline);
    // The end of the input (the peer closed: kAborted) or a line over the
    // limit, which stays buffered: nothing more to read either way.
    if (!m.ok() && (m.error().code == fabric::ErrorCode::kAborted ||
                    conn.buffered() > fabric::probe::kMaxLineBytes)) {
      break;
    }
  }
  // All bytes and the EOF are there before the first read: waiting means the
  // reader lost track of its buffer.
  if (fabric::probe::SteadyClock::now() - start > std::chrono::seconds(4)) std::abort();
}

void Handshake(std::string_view bytes) {
  static const fabric::probe::ResponderOptions* options = [] {
    auto* o = new fabric::probe::ResponderOptions;
    o->secret = "fuzz-secret-0123456789abcdef";
    o->idle_timeout = std::chrono::milliseconds(2000);
    return o;
  }();
  Peer peer(bytes);
  sockaddr_storage from{};
  auto* v4 = reinterpret_cast<sockaddr_in*>(&from);
  v4->sin_family = AF_INET;
  v4->sin_addr.s_addr = htonl(0x7f000001);
  fabric::probe::Session session(*options, fabric::UniqueFd(peer.fds[0]), from);
  // Without the secret the fuzzer cannot answer the random challenge, so
  // anything but an authentication failure or a closed connection is a hole.
  auto outcome = session.Run();
  if (outcome != fabric::probe::Session::Outcome::kAuthFailed &&
      outcome != fabric::probe::Session::Outcome::kFailed) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fabric::log::Configure(fabric::log::Level::kError, fabric::log::Format::kLogfmt);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto in = fabric::fuzz::Split(data, size, 4);
  switch (in.selector) {
    case 0:
      MessageRoundTrip(in.text);
      break;
    case 1:
      Framing(in.text);
      break;
    case 2:
      (void)fabric::probe::ParseCidrList(in.text);
      (void)fabric::probe::ParseHostPort(in.text, 18515);
      break;
    case 3:
      Handshake(in.text);
      break;
  }
  return 0;
}
