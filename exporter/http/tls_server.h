// TlsServer: the exporter's own listener. HTTPS when the web config has
// tls_server_config: the exporter serves TLS itself because Debian 12's
// civetweb 1.15 cannot: it looks up SSL_get_peer_certificate in libssl by
// name, which OpenSSL 3 only provides as a macro, and crashes on the first TLS
// connection (civetweb issue #1334). Plain HTTP on an [IPv6] listen address:
// Debian's civetweb is built without IPv6 (mg_check_feature(8) is 0).
//
// Deliberately small: one request per connection (Connection: close), request
// heads capped at 16 KiB, no request bodies, socket timeouts on every read and
// write, and at most `max_connections` connections served at once (further ones wait in
// the listen backlog).
#pragma once

#include <openssl/ssl.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "common/result.h"
#include "common/unique_fd.h"
#include "exporter/http/http_router.h"
#include "exporter/http/web_config.h"

namespace fabric {

// The request line and headers the TLS listener reads before it routes (the
// head without its final blank line): nullopt unless the request line is
// "METHOD TARGET HTTP/1.x". Only the path and Authorization are kept.
std::optional<HttpRequest> ParseRequestHead(std::string_view head);

struct SslCtxDeleter {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
using UniqueSslCtx = std::unique_ptr<SSL_CTX, SslCtxDeleter>;

class TlsServer {
 public:
  // `router` must outlive the server. Without `tls` (nullptr) it speaks plain HTTP.
  static Result<std::unique_ptr<TlsServer>> Start(const std::string& listen_address,
                                                  const TlsServerConfig* tls, int max_connections,
                                                  HttpRouter* router);
  ~TlsServer();
  TlsServer(const TlsServer&) = delete;
  TlsServer& operator=(const TlsServer&) = delete;

  int port() const { return port_; }

 private:
  TlsServer() = default;
  void AcceptLoop();
  void Serve(UniqueFd client);

  UniqueSslCtx ctx_;  // Null: plain HTTP.
  UniqueFd listener_;
  UniqueFd stop_event_;
  int port_ = 0;
  int max_connections_ = 8;
  HttpRouter* router_ = nullptr;
  std::thread accept_thread_;
  std::mutex mutex_;
  std::condition_variable idle_;  // A connection finished, or stopping_.
  int active_ = 0;
  bool stopping_ = false;
};

}  // namespace fabric
