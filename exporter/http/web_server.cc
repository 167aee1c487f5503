#include "exporter/http/web_server.h"

#include <CivetServer.h>
#include <civetweb.h>

#include <atomic>
#include <exception>

#include "exporter/http/listen_address.h"

namespace fabric {
namespace {

std::atomic<WebServer*> g_server{nullptr};

// Returning 0 hands the request on to civetweb's handlers (none are
// registered: a 404); any other value means it was answered here (civetweb
// logs the value as the status).
int HandleBeginRequest(mg_connection* conn) {
  WebServer* server = g_server.load();
  const mg_request_info* info = mg_get_request_info(conn);
  if (server == nullptr || info == nullptr || info->local_uri == nullptr) return 0;
  HttpRequest request;
  request.method = info->request_method ? info->request_method : "";
  request.path = info->local_uri;
  const char* authorization = mg_get_header(conn, "Authorization");
  request.authorization = authorization ? authorization : "";
  const char* accept_encoding = mg_get_header(conn, "Accept-Encoding");
  request.accept_encoding = accept_encoding ? accept_encoding : "";
  auto response = server->router().Handle(request, /*serve_metrics=*/true);
  if (!response) return 0;
  std::string head = "HTTP/1.1 " + std::to_string(response->status) + " " +
                     HttpReasonPhrase(response->status) +
                     "\r\nContent-Type: " + response->content_type +
                     "\r\nContent-Length: " + std::to_string(response->body.size()) +
                     "\r\nCache-Control: no-store\r\nConnection: close\r\n";
  if (!response->extra_headers.empty()) head += response->extra_headers + "\r\n";
  head += "\r\n";
  mg_write(conn, head.data(), head.size());
  if (request.method != "HEAD") mg_write(conn, response->body.data(), response->body.size());
  return response->status;
}

}  // namespace

Result<std::unique_ptr<WebServer>> WebServer::Start(const WebServerOptions& options,
                                                    WebRoutes routes, MetricsSource metrics) {
  auto port = ToCivetListeningPort(options.listen_address);
  if (!port.ok()) return Unexpected{port.error()};
  std::unique_ptr<WebServer> server(new WebServer());
  server->router_ = std::make_unique<HttpRouter>(
      std::move(routes), std::move(metrics),
      std::make_unique<BasicAuthenticator>(options.web_config.basic_auth_users));
  // TLS, and plain HTTP on [IPv6] (Debian's civetweb has no IPv6): the own listener.
  if (options.web_config.tls || port->front() == '[') {
    const TlsServerConfig* tls = options.web_config.tls ? &*options.web_config.tls : nullptr;
    auto own =
        TlsServer::Start(options.listen_address, tls, options.threads, server->router_.get());
    if (!own.ok()) return Unexpected{own.error()};
    server->tls_server_ = std::move(*own);
    return server;
  }
  WebServer* expected = nullptr;
  if (!g_server.compare_exchange_strong(expected, server.get())) {
    return MakeError("a web server is already running in this process");
  }
  CivetCallbacks callbacks;
  callbacks.begin_request = &HandleBeginRequest;
  try {
    server->exposer_ = std::make_unique<prometheus::Exposer>(
        std::vector<std::string>{"listening_ports", *port, "num_threads",
                                 std::to_string(options.threads), "request_timeout_ms",
                                 std::to_string(options.request_timeout_ms)},
        &callbacks);
  } catch (const std::exception& e) {
    g_server = nullptr;
    return MakeError("cannot listen on " + options.listen_address + " (" + e.what() +
                     "): is the port in use or the address not on this host?");
  }
  return server;
}

std::vector<int> WebServer::ListeningPorts() const {
  if (tls_server_) return {tls_server_->port()};
  return exposer_->GetListeningPorts();
}

WebServer::~WebServer() {
  // Stop serving before the router goes away.
  exposer_.reset();
  tls_server_.reset();
  WebServer* self = this;
  g_server.compare_exchange_strong(self, nullptr);
}

}  // namespace fabric
