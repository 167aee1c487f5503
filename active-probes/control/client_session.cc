#include "active-probes/control/client_session.h"

#include "active-probes/control/auth.h"
#include "active-probes/control/message.h"
#include "common/strings.h"

namespace fabric::probe {

std::string PeerText(const HostPort& p) { return p.host + ":" + std::to_string(p.port); }

void WaitForClose(LineConn& conn) {
  (void)conn.Read(SteadyClock::now() + std::chrono::milliseconds(2000));
}

Result<LineConn> OpenClientSession(const ClientSessionOptions& o, uint64_t* retry_ms) {
  auto fd = Dial(o.peer, o.bind_address, o.timeout, 0, 0, true, o.stop);
  if (!fd.ok()) return Unexpected{fd.error()};
  LineConn conn(std::move(*fd));
  conn.set_stop(o.stop);
  auto deadline = [&] { return SteadyClock::now() + o.timeout; };
  Message hello;
  hello.verb = "HELLO";
  hello.Set("v", static_cast<uint64_t>(kProtocolVersion)).Set("probe", o.probe);
  if (!o.fleet_digest.empty()) hello.Set("fleet", o.fleet_digest);
  if (auto s = conn.Write(hello, deadline()); !s.ok()) {
    if (s.error().code == ErrorCode::kInterrupted) return Unexpected{s.error()};
    return MakeError(ErrorCode::kRefused,
                     "refused: " + PeerText(o.peer) + " closed the connection");
  }
  auto first = conn.Read(deadline());
  if (!first.ok()) {
    if (first.error().code == ErrorCode::kInterrupted) return Unexpected{first.error()};
    if (first.error().code == ErrorCode::kTimeout) {
      return MakeError(ErrorCode::kTimeout,
                       "timeout: " + PeerText(o.peer) + " did not answer HELLO");
    }
    return MakeError(ErrorCode::kRefused,
                     "refused: " + PeerText(o.peer) + " closed the connection before answering");
  }
  if (first->verb == "BUSY") {
    *retry_ms = first->Uint("retry_ms").value_or(1000);
    return MakeError(ErrorCode::kBusy, "busy: " + PeerText(o.peer) +
                                           " is running another probe session; retry in " +
                                           std::to_string(*retry_ms) + " ms");
  }
  if (first->verb == "ERR" && first->Get("reason") == "not-allowed") {
    return MakeError(
        ErrorCode::kRefused,
        "refused: " + PeerText(o.peer) + " does not allow this source address (responder --allow)");
  }
  if (first->verb == "ERR" && first->Get("reason") == "fleet-mismatch") {
    const std::string theirs = first->Get("fleet").value_or("");
    if (o.on_peer_fleet) o.on_peer_fleet(o.peer.host, theirs);
    return MakeError(ErrorCode::kFleetMismatch,
                     "fleet mismatch: " + PeerText(o.peer) + " plans with fleet list " +
                         Quote(theirs) + ", this node with " + Quote(o.fleet_digest) +
                         "; no probe runs between them until both hold the same nodes file");
  }
  if (first->verb != "CHALLENGE" || !first->Get("nonce")) {
    return MakeError(ErrorCode::kRefused, "refused: unexpected answer " + Quote(first->verb) +
                                              " from " + PeerText(o.peer));
  }
  if (o.on_peer_fleet) o.on_peer_fleet(o.peer.host, first->Get("fleet").value_or(""));
  std::string server_nonce = *first->Get("nonce");
  std::string client_nonce = MakeNonce();
  Message auth;
  auth.verb = "AUTH";
  auth.Set("cnonce", client_nonce);
  auth.Set("mac", ComputeMac(o.secret, "client", server_nonce, client_nonce));
  if (auto s = conn.Write(auth, deadline()); !s.ok()) return Unexpected{s.error()};
  auto reply = conn.Read(deadline());
  if (!reply.ok() && reply.error().code == ErrorCode::kInterrupted) {
    return Unexpected{reply.error()};
  }
  if (!reply.ok() || reply->verb != "AUTH_OK") {
    if (reply.ok()) WaitForClose(conn);
    return MakeError(ErrorCode::kAuth,
                     "auth: " + PeerText(o.peer) +
                         " refused the shared secret (check --secret-file on both sides)");
  }
  if (!MacEqual(reply->Get("mac").value_or(""),
                ComputeMac(o.secret, "server", server_nonce, client_nonce))) {
    return MakeError(ErrorCode::kAuth,
                     "auth: " + PeerText(o.peer) + " does not hold the shared secret");
  }
  return conn;
}

}  // namespace fabric::probe
