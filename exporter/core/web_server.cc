#include "exporter/core/web_server.h"

#include <CivetServer.h>
#include <civetweb.h>

#include <atomic>
#include <cstring>
#include <exception>

#include "exporter/core/listen_address.h"

namespace fabric {
namespace {

std::atomic<WebServer*> g_server{nullptr};

void Send(mg_connection* conn, int status, const char* status_text, const char* content_type,
          const std::string& body, bool head_only) {
  mg_printf(conn,
            "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
            "Cache-Control: no-store\r\nConnection: close\r\n\r\n",
            status, status_text, content_type, body.size());
  if (!head_only) mg_write(conn, body.data(), body.size());
}

// Returning 0 hands the request on to the Exposer's handler; any other value
// means it was answered here (the value is logged as the status).
int HandleBeginRequest(mg_connection* conn) {
  WebServer* server = g_server.load();
  const mg_request_info* info = mg_get_request_info(conn);
  if (server == nullptr || info == nullptr || info->local_uri == nullptr) return 0;
  std::string_view uri = info->local_uri;
  if (uri == server->routes().telemetry_path) return 0;
  std::string_view method = info->request_method ? info->request_method : "";
  bool head = method == "HEAD";
  if (method != "GET" && !head) {
    Send(conn, 405, "Method Not Allowed", "text/plain; charset=utf-8", "use GET\n", false);
    return 405;
  }
  try {
    if (uri == "/") {
      Send(conn, 200, "OK", "text/html; charset=utf-8", server->routes().landing_page(), head);
      return 200;
    }
    if (uri == "/-/healthy") {
      Send(conn, 200, "OK", "text/plain; charset=utf-8", "Healthy\n", head);
      return 200;
    }
    if (uri == "/-/ready") {
      bool ready = !server->routes().ready || server->routes().ready();
      if (ready) {
        Send(conn, 200, "OK", "text/plain; charset=utf-8", "Ready\n", head);
        return 200;
      }
      Send(conn, 503, "Service Unavailable", "text/plain; charset=utf-8", "Not ready\n", head);
      return 503;
    }
  } catch (const std::exception& e) {
    Send(conn, 500, "Internal Server Error", "text/plain; charset=utf-8",
         std::string("internal error: ") + e.what() + "\n", head);
    return 500;
  }
  Send(conn, 404, "Not Found", "text/plain; charset=utf-8",
       "not found; try / or " + server->routes().telemetry_path + "\n", head);
  return 404;
}

}  // namespace

Result<std::unique_ptr<WebServer>> WebServer::Start(
    const WebServerOptions& options, WebRoutes routes,
    std::shared_ptr<prometheus::Collectable> metrics) {
  auto port = ToCivetListeningPort(options.listen_address);
  if (!port.ok()) return Unexpected{port.error()};
  std::unique_ptr<WebServer> server(new WebServer());
  server->routes_ = std::move(routes);
  server->metrics_ = std::move(metrics);
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
  server->exposer_->RegisterCollectable(server->metrics_, server->routes().telemetry_path);
  return server;
}

WebServer::~WebServer() {
  exposer_.reset();  // Stops civetweb's threads before the routes go away.
  WebServer* self = this;
  g_server.compare_exchange_strong(self, nullptr);
}

}  // namespace fabric
