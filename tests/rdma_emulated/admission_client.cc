// A misbehaving RDMA requester for the responder's admission tests: it opens
// an authenticated session like fabric_probe rdma, then connects its queue
// pair through the real verbs backend with a token or a source address of its
// choosing. Exit 0: the QP was accepted; 5: refused (what the test expects
// for a wrong token or a foreign address); 1: anything else.
//
//   rdma_emulated_admission_client --peer HOST:PORT --secret-file FILE
//       [--bind ADDR] [--qp-source ADDR] [--token TEXT]
#include <arpa/inet.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "active-probes/control/client_session.h"
#include "active-probes/rdma/backend.h"
#include "active-probes/rdma/rdma_messages.h"
#include "active-probes/tcp/tcp_probe.h"

namespace fabric::probe {
namespace {

int Run(int argc, char** argv) {
  std::string peer, secret_file, bind, qp_source, token;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    std::string value = argv[i + 1];
    if (flag == "--peer") peer = value;
    if (flag == "--secret-file") secret_file = value;
    if (flag == "--bind") bind = value;
    if (flag == "--qp-source") qp_source = value;
    if (flag == "--token") token = value;
  }
  std::ifstream in(secret_file);
  std::string secret;
  std::getline(in, secret);
  auto hp = ParseHostPort(peer, 9878);
  if (!hp.ok()) {
    std::fprintf(stderr, "--peer: %s\n", hp.error().message.c_str());
    return 1;
  }
  ClientSessionOptions c;
  c.peer = *hp;
  c.bind_address = bind;
  c.secret = secret;
  c.probe = "rdma";
  uint64_t retry_ms = 0;
  auto session = OpenClientSession(c, &retry_ms);
  if (!session.ok()) {
    std::fprintf(stderr, "session: %s\n", session.error().message.c_str());
    return 1;
  }
  LineConn& control = *session;
  auto deadline = [] { return SteadyClock::now() + std::chrono::seconds(5); };
  RdmaRequest req;
  req.qps = 1;
  req.size = 4096;
  req.tx_depth = 4;
  req.duration_ms = 1000;
  if (auto s = control.Write(RdmaRequestToMessage(req), deadline()); !s.ok()) return 1;
  auto accept = control.Read(deadline());
  if (!accept.ok()) return 1;
  auto offer = RdmaAcceptFromMessage(*accept);
  if (!offer.ok()) {
    std::fprintf(stderr, "accept: %s\n", offer.error().message.c_str());
    return 1;
  }
  RdmaInitiatorRequest ireq;
  ireq.local = LocalAddress(control.fd());
  if (!qp_source.empty()) {
    ireq.local = sockaddr_storage{};
    auto* in4 = reinterpret_cast<sockaddr_in*>(&ireq.local);
    in4->sin_family = AF_INET;
    if (inet_pton(AF_INET, qp_source.c_str(), &in4->sin_addr) != 1) return 1;
  }
  ireq.peer = PeerAddress(control.fd());
  ireq.token = token.empty() ? offer->second : token;
  ireq.qps = 1;
  ireq.size = req.size;
  ireq.tx_depth = req.tx_depth;
  ireq.remote = offer->first;
  ireq.timeout = std::chrono::seconds(3);
  auto initiator = DefaultRdmaBackend().NewInitiator();
  if (!initiator.ok()) return 1;
  auto info = (*initiator)->Connect(ireq);
  initiator->reset();
  if (info.ok()) {
    std::printf("connected\n");
    return 0;
  }
  std::printf("%s\n", info.error().message.c_str());
  return info.error().code == ErrorCode::kRefused ? 5 : 1;
}

}  // namespace
}  // namespace fabric::probe

int main(int argc, char** argv) { return fabric::probe::Run(argc, argv); }
